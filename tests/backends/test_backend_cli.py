"""Backend options through the real `contio` command line: bad ones exit 2 naming the option."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["gluster", "volume_type=dispersed", "redundancy=2"], "'redundancy'"),
        (["gluster", "volume_type=mirror"], "'volume_type'"),
        (["striped", "stripe_size=3KiB"], "'stripe_size'"),
        (["local", "mode=device", "device=loop", "format=zfs"], "'format'"),
        (["nfs", "export_path=/srv", "export_mode=later"], "'export_mode'"),
        (["path", "path=/tmp", "colour=blue"], "'colour'"),
        (["ceph"], "allowed: local-dir, gluster, local, nfs, path, striped"),
        (["local-dir", "path=/proc"], "option 'path': /proc is on proc"),
        (["local", "mode=device", "device=/dev/no-such", "format=xfs"], "does not exist"),
    ],
)
def test_bad_options_exit_2_and_name_the_option(run_contio, args, named):
    done = run_contio("backend", "check", *args)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr


def test_good_options_are_printed_in_full(run_contio):
    done = run_contio(
        "backend", "check", "gluster", "volume_type=distributed-dispersed", "bricks=6"
    )
    assert done.returncode == 0, done.stderr
    options = json.loads(done.stdout)
    assert options["volume_type"] == "distributed-dispersed" and options["bricks"] == 6
    assert options["mount_options"] == []


def test_list_names_every_backend_and_option(run_contio):
    done = run_contio("backend", "list")
    assert done.returncode == 0, done.stderr
    for line in ("gluster:", "  volume_type = 'dispersed'", "nfs:", "  export_path = (required)"):
        assert line in done.stdout.splitlines()


def test_local_dir_is_checked_like_every_backend_a_spec_accepts(run_contio, tmp_path):
    done = run_contio("backend", "check", "local-dir")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"path": None}
    done = run_contio("backend", "check", "local-dir", f"path={tmp_path}")
    assert json.loads(done.stdout) == {"path": str(tmp_path)}
    done = run_contio("backend", "check", "local-dir", f"path={tmp_path / 'no'}")
    assert done.returncode == 2
    assert "backend 'local-dir' option 'path'" in done.stderr
    assert f"{tmp_path / 'no'} is not an existing directory" in done.stderr
    assert "local-dir:\n  path = None" in run_contio("backend", "list").stdout


def test_a_boolean_is_not_a_count(run_contio):
    done = run_contio("backend", "check", "gluster", "nodes=true")
    assert done.returncode == 2
    assert "'nodes': true is a boolean, not a number" in done.stderr
