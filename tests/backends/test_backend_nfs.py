"""The `nfs` backend: export lines, option validation and Docker volume definitions as
units; the real export and mount skip with the kernel's reason where NFS is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.backends import nfs_config, nfs_support, registry
from contio.errors import BackendOptionError, BackendUnavailableError


def test_export_lines_for_sync_and_async():
    base = {"export_path": "/srv/nfs/data"}
    sync = registry.create("nfs", base)
    assert sync.export_line() == "/srv/nfs/data *(sync,rw,no_root_squash,no_subtree_check)"
    async_ = registry.create(
        "nfs", {**base, "export_mode": "async", "clients": "10.0.0.0/24", "export_options": ["rw"]}
    )
    assert async_.export_line() == "/srv/nfs/data 10.0.0.0/24(async,rw)"


def test_docker_volume_definition_mounts_the_containers_directory():
    backend = registry.create(
        "nfs",
        {"server": "10.0.0.5", "export_path": "/export", "mount_options": ["nfsvers=4.1", "hard"]},
    )
    volume = backend.volume_definition("mysql-1")
    assert volume.driver == "local"
    assert volume.driver_opts == {
        "type": "nfs",
        "o": "addr=10.0.0.5,nfsvers=4.1,hard",
        "device": f":/export/contio-{backend.instance}/mysql-1",
    }
    assert volume.create_argv()[-1] == volume.name
    assert "--opt" in volume.create_argv() and "type=nfs" in volume.create_argv()


def test_host_mount_command():
    argv = nfs_config.host_mount_argv("srv", "/export", Path("/mnt/x"), ["nfsvers=3", "noac"])
    assert argv == ["mount", "-t", "nfs", "-o", "nfsvers=3,noac", "srv:/export", "/mnt/x"]


@pytest.mark.parametrize(
    ("options", "option", "hint"),
    [
        ({"export_path": "/e", "export_mode": "delayed"}, "export_mode", "'sync' or 'async'"),
        ({"export_path": "/e", "export_options": ["sync"]}, "export_options", "set by 'export_mode'"),
        ({"export_path": "/e", "export_options": ["rw", "fast"]}, "export_options", "no_root_squash"),
        ({"export_path": "/e", "mount_options": ["vers=5"]}, "mount_options", "nfsvers="),
        ({"export_path": "/e", "mount_via": "fuse"}, "mount_via", "'docker-volume' or 'host'"),
        ({"export_path": "relative/dir"}, "export_path", "absolute"),
        ({"export_path": "/e", "server": "a b"}, "server", "must match"),
        ({}, "export_path", "required"),
    ],
)  # fmt: skip
def test_bad_options_name_the_option(options, option, hint):
    with pytest.raises(BackendOptionError) as err:
        registry.create("nfs", options)
    assert err.value.option == option
    assert hint in str(err.value)


def test_support_detection_reads_proc_filesystems(tmp_path):
    fs = tmp_path / "filesystems"
    fs.write_text("nodev\tsysfs\n\text4\nnodev\tnfs\nnodev\tnfs4\n")
    listed = nfs_support.probe("client", fs)
    assert listed.available and listed.reason == f"nfs/nfs4 listed in {fs}"
    fs.write_text("nodev\tsysfs\n\text4\nnodev\tnfsd\n")
    assert nfs_support.probe("server", fs).available
    # Not listed, and no module loader: the reason names the file, the types, the module.
    fs.write_text("nodev\tsysfs\n\text4\n")
    missing = nfs_support.probe("client", fs, modprobe="contio-test-no-such-program")
    assert not missing.available
    assert f"nfs/nfs4 is not in {fs}" in missing.reason
    assert "contio-test-no-such-program is not available to load 'nfs'" in missing.reason
    # Not listed, and the loader says no (`false` exits 1): its failure is the reason.
    refused = nfs_support.probe("server", fs, modprobe="false")
    assert not refused.available
    assert f"nfsd is not in {fs} and `false nfsd` fails" in refused.reason


def test_real_export_and_mount_or_skip_with_reason(tmp_path, no_leaks):
    backend = registry.create(
        "nfs", {"export_path": str(tmp_path), "mount_via": "host", "export_mode": "async"}
    )
    for role in ("client", "server"):
        support = nfs_support.probe(role)
        if not support.available:
            with pytest.raises(BackendUnavailableError, match="nfs") as err:
                backend.provision()
            assert support.reason in str(err.value)
            pytest.skip(support.reason)
    with backend:
        location = backend.data_location("db")
        (location.path / "f").write_bytes(b"over nfs")
        assert (location.path / "f").read_bytes() == b"over nfs"
        assert backend.describe()["host_mount"]["fstype"].startswith("nfs")
