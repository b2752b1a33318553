"""Hierarchy detection, local process groups and a Docker container's blkio cgroup."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

from contio.errors import QosConfigError, QosError
from contio.qos import ProcessGroup, cgroup_of_pid, container_cgroup, hierarchy
from contio.qos.process_group import PARENT

HYBRID = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
40 31 0:37 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
"""


def v2_only(root: Path) -> str:
    return f"30 23 0:27 / {root} rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n"


def test_detects_v1_on_a_hybrid_host():
    assert hierarchy.detect(HYBRID) == ("v1", Path("/sys/fs/cgroup/blkio"))


def test_detects_v2_when_the_unified_hierarchy_has_io(tmp_path: Path):
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    assert hierarchy.detect(v2_only(tmp_path)) == ("v2", tmp_path)


def test_no_io_controller_anywhere_is_an_error(tmp_path: Path):
    (tmp_path / "cgroup.controllers").write_text("cpu memory\n")
    with pytest.raises(QosError, match="no cgroup hierarchy with block I/O control"):
        hierarchy.detect(v2_only(tmp_path))


def _blkio_mounts_from_mountinfo() -> list[Path]:
    """The v1 blkio mount points, read straight from /proc/self/mountinfo (not through
    contio): field 5 is the mount point, after ' - ' come the type and the options."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, _, after = line.partition(" - ")
        fstype, _source, options = after.split()[:3]
        if fstype == "cgroup" and "blkio" in options.split(","):
            found.append(Path(before.split()[4]))
    return found


def test_the_hierarchy_found_is_the_one_the_kernel_mounted(v1_root):
    # This machine mounts cgroup v1 with blkio (docs/design.md): detection must find it
    # there, whatever contio's own mount parsing does.
    mounts = _blkio_mounts_from_mountinfo()
    assert mounts, "this host mounts no cgroup v1 blkio hierarchy"
    version, root = hierarchy.detect()
    assert version == "v1" and root in mounts and v1_root in mounts


def test_process_group_holds_its_processes_and_is_removed(v1_root, group_name):
    root = v1_root
    group = ProcessGroup.create(group_name)
    assert group.cgroup.path == root / PARENT / group_name
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        started_inside = group.popen(["sleep", "30"])
        group.add(sleeper.pid)
        assert sorted(group.pids()) == sorted([sleeper.pid, started_inside.pid])
        assert cgroup_of_pid(started_inside.pid).path == group.cgroup.path
        with pytest.raises(QosError, match="already exists"):
            ProcessGroup.create(group_name)
        group.remove()  # members are moved out first
        assert not group.cgroup.path.exists()
        assert cgroup_of_pid(sleeper.pid).path == root
    finally:
        for proc in (sleeper, started_inside):
            proc.kill()
            proc.wait()
        group.remove()


@pytest.mark.parametrize("bad", ["../escape", "a/b", "", "-x", "x" * 65])
def test_group_names_are_validated(bad):
    with pytest.raises(QosConfigError, match=r"^name: .* allowed: letters, digits"):
        ProcessGroup.create(bad)


@pytest.mark.docker
def test_container_blkio_cgroup_is_found_and_controllable(loop_disk):
    from contio.containers.docker_engine import ensure_engine
    from contio.images.build import build
    from contio.qos import IoLimits, apply, remove

    _, device = loop_disk
    client = ensure_engine()
    [base] = build(client, ["debian"])
    name = f"contio-qos-test-{uuid.uuid4().hex[:8]}"
    container = client.containers.run(base.tag, ["sleep", "60"], name=name, detach=True)
    try:
        container.reload()
        cgroup = container_cgroup(client, name)
        assert cgroup.version == "v1"
        assert container.id in str(cgroup.path)  # cgroupfs driver: /docker/<id>
        assert container.attrs["State"]["Pid"] in cgroup.pids()
        record = apply(cgroup, device, IoLimits(read_bps=1 << 20))
        try:
            text = (cgroup.path / "blkio.throttle.read_bps_device").read_text()
            assert f"{device.number} 1048576" in text
        finally:
            remove(record)
        with pytest.raises(QosError, match="no container named"):
            container_cgroup(client, name + "-missing")
    finally:
        container.remove(force=True)
