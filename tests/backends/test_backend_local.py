"""The `local` backend for real: a directory, loop devices formatted XFS and ext4 (the
engine writes checksummed blocks through each and reads them back), and the Docker
named volume definition."""

from __future__ import annotations

import pytest

from contio.backends import registry
from contio.containers.data_location import DockerVolume, HostPath
from contio.errors import BackendOptionError, UsageError
from contio.host import loop_device


def test_directory_mode_uses_given_directory_and_removes_only_its_own(
    tmp_path, tmp_path_factory, no_leaks, engine_verify
):
    (tmp_path / "keep.txt").write_text("user data")
    backend = registry.create("local", {"mode": "directory", "path": str(tmp_path)})
    backend.provision()
    location = backend.data_location("mongo-1")
    assert isinstance(location, HostPath)
    assert tmp_path in location.path.parents
    # Buffered: the directory may be on any file system (tmpfs has no O_DIRECT everywhere).
    verified = engine_verify(location.path, tmp_path_factory.mktemp("engine"), direct=False)
    assert verified.checked == verified.written == 128
    described = backend.describe()
    assert described["backend"] == "local" and described["mount"]["fstype"]
    backend.teardown()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("fstype", ["xfs", "ext4"])
def test_loop_device_formatted_mounted_and_removed(
    fstype, state_dir, tmp_path, no_leaks, engine_verify
):
    backend = registry.create(
        "local", {"mode": "device", "device": "loop", "format": fstype, "loop_size": "512MiB"}
    )
    with backend:
        data_dir = backend.new_directory("ycsb-a")
        verified = engine_verify(data_dir, tmp_path, direct=True, size="32m")
        assert verified.checked == verified.written == 512
        described = backend.describe()
        assert described["mount"]["fstype"] == fstype
        assert described["device"]["device"].startswith("/dev/loop")
        assert described["device"]["loop_backing_file"].startswith(str(state_dir))
        assert described["device"]["size_bytes"] == 512 * 1024**2
    assert loop_device.attached_to(backend.workdir) == []
    assert not backend.workdir.exists()


def test_docker_volume_definition():
    backend = registry.create("local", {"mode": "docker-volume"})
    backend.provision()
    location = backend.data_location("cassandra-1")
    assert isinstance(location, DockerVolume)
    assert location.name == f"contio-{backend.instance}-cassandra-1"
    assert location.driver == "local" and location.driver_opts == {}
    assert location.create_argv() == [
        "docker", "volume", "create", "--driver", "local",
        "--label", f"contio.backend={backend.instance}", location.name,
    ]  # fmt: skip
    assert backend.describe()["volume_driver"] == "local"
    backend.teardown()


@pytest.mark.parametrize(
    ("options", "option", "hint"),
    [
        ({"mode": "disk"}, "mode", "'directory', 'device' or 'docker-volume'"),
        ({"mode": "device", "device": "loop", "format": "zfs"}, "format", "'xfs' or 'ext4'"),
        ({"mode": "device", "device": "loop"}, "format", "set 'format'"),
        ({"mode": "directory", "path": "/tmp", "sise": 1}, "sise", "allowed options: device"),
        ({"mode": "device", "device": "loop", "format": "xfs", "loop_size": "big"}, "loop_size", "512MiB"),
    ],
)  # fmt: skip
def test_bad_options_name_the_option(options, option, hint):
    with pytest.raises(BackendOptionError) as err:
        registry.create("local", options)
    assert isinstance(err.value, UsageError)  # exit code 2 in the CLI
    assert err.value.option == option
    assert hint in str(err.value)


def test_missing_directory_is_rejected_before_anything_is_made(tmp_path, no_leaks):
    backend = registry.create("local", {"mode": "directory", "path": str(tmp_path / "nope")})
    with pytest.raises(BackendOptionError, match=r"'path'.*not an existing directory"):
        backend.provision()
    assert list(tmp_path.iterdir()) == []


def test_unknown_backend_lists_the_names():
    with pytest.raises(
        BackendOptionError, match="allowed: local-dir, gluster, local, nfs, path, striped"
    ):
        registry.create("ceph", {})
