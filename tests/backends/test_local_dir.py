"""The local-directory backend on the real file system."""

import os

from contio.backends import registry
from contio.backends.local_dir import mount_of


def test_new_directories_are_fresh_and_teardown_removes_only_its_own(tmp_path):
    (tmp_path / "someone-elses").mkdir()
    backend = registry.create("local-dir", {"path": str(tmp_path)}, experiment="exp")
    backend.provision()
    first = backend.new_directory("lsm-workloada")
    second = backend.new_directory("lsm-workloada")
    assert first != second and first.is_dir() and second.is_dir()
    assert list(first.iterdir()) == []
    (first / "data").write_bytes(b"x" * 10)
    backend.release(first)
    assert not first.exists() and second.exists()
    root = backend.root
    assert root is not None and root.parent == tmp_path and root.name.startswith("contio-exp-")
    backend.teardown()
    assert not root.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["someone-elses"]
    backend.teardown()  # twice is harmless


def test_describe_names_the_file_system_and_device(tmp_path):
    info = registry.create("local-dir", {"path": str(tmp_path)}, experiment="exp").describe()
    assert info["base"] == str(tmp_path.resolve())
    st = os.stat(tmp_path)
    assert info["device"] == f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    assert info["mount"]["fstype"]  # whatever it is here, /proc/mounts names it
    assert 0 < info["free_bytes"] <= info["total_bytes"]


MOUNTS = """\
/dev/vda / ext4 rw,relatime 0 0
proc /proc proc rw 0 0
tmpfs /data tmpfs rw 0 0
/dev/loop3 /data/my\\040disk xfs rw 0 0
/dev/loop4 /data/my\\040disk xfs rw 0 0
"""


def test_the_longest_and_last_matching_mount_wins(tmp_path):
    from pathlib import Path

    assert mount_of(Path("/data/my disk/a"), MOUNTS) == {
        "mount_point": "/data/my disk",
        "fstype": "xfs",
        "source": "/dev/loop4",
        "options": "rw",
    }
    assert mount_of(Path("/data/other"), MOUNTS)["fstype"] == "tmpfs"
    assert mount_of(Path("/database"), MOUNTS)["fstype"] == "ext4"
