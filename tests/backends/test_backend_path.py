"""The `path` backend: an existing mount used as it is, described, never deleted."""

from __future__ import annotations

import pytest

from contio.backends import registry
from contio.errors import BackendOptionError
from contio.host import mountinfo

MOUNTINFO_SAMPLE = (
    "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
    "90 22 0:77 / /mnt/ceph\\040fs rw,relatime - ceph 10.0.0.1:6789:/ rw,name=admin\n"
)


def test_existing_directory_is_used_described_and_kept(
    tmp_path, tmp_path_factory, no_leaks, engine_verify
):
    (tmp_path / "theirs").write_text("keep")
    backend = registry.create("path", {"path": str(tmp_path)})
    with backend:
        location = backend.data_location("mongo")
        # Buffered: a user's mount (CephFS, Lustre, tmpfs) need not support O_DIRECT.
        verified = engine_verify(location.path, tmp_path_factory.mktemp("engine"), direct=False)
        assert verified.checked == verified.written == 128
        described = backend.describe()
        expected = mountinfo.mount_of(tmp_path)
        assert expected is not None
        assert described["fstype"] == expected.fstype
        assert described["mount"]["mount_point"] == expected.mount_point
    assert [p.name for p in tmp_path.iterdir()] == ["theirs"]
    assert (tmp_path / "theirs").read_text() == "keep"


def test_mountinfo_parsing_with_escapes():
    entry = mountinfo.mount_of("/mnt/ceph fs/data", MOUNTINFO_SAMPLE)
    assert entry is not None
    assert (entry.fstype, entry.mount_point, entry.source) == (
        "ceph",
        "/mnt/ceph fs",
        "10.0.0.1:6789:/",
    )
    root = mountinfo.mount_of("/home", MOUNTINFO_SAMPLE)
    assert root is not None and root.fstype == "ext4"


def test_required_fstype_is_checked(tmp_path):
    backend = registry.create("path", {"path": str(tmp_path), "require_fstype": "lustre"})
    with pytest.raises(BackendOptionError, match=r"require_fstype.*not 'lustre'"):
        backend.provision()
    assert list(tmp_path.iterdir()) == []


def test_missing_path_is_rejected(tmp_path):
    with pytest.raises(BackendOptionError, match="'path'"):
        registry.create("path", {"path": str(tmp_path / "gone")}).provision()
    with pytest.raises(BackendOptionError, match=r"'path'.*required"):
        registry.create("path", {})
