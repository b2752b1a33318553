"""`contio qos` usage errors exit 2, each naming what to fix: a cluster whose middleware
is not up, options judged before the cluster is looked for, and tenant names bounded to
what can name a cgroup (checked by the CLI, the client and the coordinator alike)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from contio.errors import QosConfigError
from contio.middleware import coordinator, vnode
from contio.middleware.store import Store


def _qos(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "contio", "qos", *args, "--cluster", "nosuch"]
    return subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, check=False)


@pytest.mark.parametrize(
    "args",
    [("status",), ("set", "t1", "--priority", "5"), ("remove", "t1"), ("policy", "static")],
)
def test_a_cluster_without_the_middleware_is_a_usage_error(tmp_path, args):
    done = _qos(tmp_path, *args)
    assert done.returncode == 2, done.stderr
    assert "not up on cluster 'nosuch'" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--limit", "fast"), "--limit: must be"),
        (("--reservation", "0"), "--reservation: must be at least 1"),
        (("--limit", "9" * 400 + "GB/s"), "--limit: must be below 2^63"),
    ],
)
def test_qos_set_judges_its_options_before_it_looks_for_the_middleware(tmp_path, args, message):
    done = _qos(tmp_path, "set", "t1", "--priority", "5", *args)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "not up" not in done.stderr


@pytest.mark.parametrize("name", ["a/b", "a?b", "x" * 256, "ünï", "_a", "", "a.b"])
def test_a_tenant_name_that_cannot_name_a_cgroup_is_refused_everywhere(tmp_path, name):
    for command in (("set", name, "--priority", "5"), ("remove", name)):
        done = _qos(tmp_path, *command)
        assert done.returncode == 2, done.stderr
        assert "tenant: must be 1–255 ASCII letters, digits" in done.stderr, done.stderr
    store = Store(tmp_path / "c.sqlite")
    try:
        with pytest.raises(QosConfigError, match="tenant: must be 1–255"):
            coordinator.Coordinator(store).set_tenant(name, 5)
        assert store.tenants() == {}
    finally:
        store.close()


def test_the_longest_names_get_cgroups_of_their_own():
    longest = "a" * 255
    assert coordinator.check_tenant_name(longest) == longest
    one = vnode.cgroup_name("node12.d3", longest)
    other = vnode.cgroup_name("node12.d3", "a" * 254 + "b")
    assert one != other and len(one) <= 64 and len(other) <= 64
    assert vnode.cgroup_name("node1", "paraview") == "qos-node1-paraview"  # short: as they are
