"""Real cgroup v1 throttles on a loop device: a process group's direct I/O is held to its limit.

Ratios only (no timing goals): the throttled rate stays within 1.5× the limit and an
unthrottled run of the same I/O on the same device is several times faster.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from contio.qos import IoLimits, ProcessGroup, apply, remove
from contio.qos.control_files import V1_THROTTLE

LIMIT = 10 * 1024 * 1024  # 10 MiB/s
MIB = 1024 * 1024


def dd_rate(group: ProcessGroup | None, argv: list[str]) -> float:
    """Bytes per second that dd reports for `argv`, run inside `group` (or not)."""
    if group is None:
        proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    else:
        proc = group.popen(argv, stderr=subprocess.PIPE, text=True)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    match = re.search(r"^(\d+) bytes .* copied, ([\d.]+) s", err, re.MULTILINE)
    assert match, err
    return int(match[1]) / float(match[2])


def write_direct(node: str, mib: int, seek_mib: int) -> list[str]:
    return [
        "dd", "if=/dev/zero", f"of={node}", "oflag=direct", "bs=1M",
        f"count={mib}", f"seek={seek_mib}", "status=progress",
    ]  # fmt: skip


def read_direct(node: str, mib: int, skip_mib: int) -> list[str]:
    return [
        "dd", f"if={node}", "of=/dev/null", "iflag=direct", "bs=1M",
        f"count={mib}", f"skip={skip_mib}", "status=progress",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("setting", "argv"),
    [("write_bps", write_direct), ("read_bps", read_direct)],
)
def test_bandwidth_limit_holds_direct_io_of_the_group(loop_disk, group_name, setting, argv):
    node, device = loop_disk
    unthrottled = dd_rate(None, argv(node, 40, 0))
    with ProcessGroup.create(group_name) as group:
        applied = apply(group.cgroup, device, IoLimits(**{setting: LIMIT}))
        try:
            throttled = dd_rate(group, argv(node, 20, 64))
            assert group.pids() == []  # dd ran inside the group and has exited
        finally:
            remove(applied)
        file = group.cgroup.path / f"blkio.throttle.{setting}_device"
        assert device.number not in file.read_text()  # removed
        after = dd_rate(group, argv(node, 40, 128))
    print(
        f"{setting}: unthrottled {unthrottled / MIB:.1f} MiB/s, limited to "
        f"{LIMIT / MIB:.0f} MiB/s: {throttled / MIB:.1f} MiB/s, removed: {after / MIB:.1f} MiB/s"
    )
    assert throttled <= 1.5 * LIMIT
    assert unthrottled >= 3 * LIMIT
    assert after >= 2 * LIMIT  # the limit is gone once removed


def test_iops_limit_and_the_record(loop_disk, group_name):
    node, device = loop_disk
    with ProcessGroup.create(group_name) as group:
        applied = apply(group.cgroup, device, IoLimits(write_iops=200))
        try:
            argv = ["dd", "if=/dev/zero", f"of={node}", "oflag=direct", "bs=4k", "count=400",
                    "status=progress"]  # fmt: skip
            rate = dd_rate(group, argv) / 4096
            record = applied.as_dict()
        finally:
            remove(applied)
    assert rate <= 1.5 * 200
    assert record["cgroup_version"] == "v1"
    assert record["device"] == device.number
    assert record["controls"] == [
        {
            "file": "blkio.throttle.write_iops_device",
            "value": f"{device.number} 200",
            "reset": f"{device.number} 0",
            "settings": ("write_iops",),
            "mechanism": V1_THROTTLE,
        }
    ]
    assert "does not throttle or weigh buffered writes" in record["notes"][0]
    assert record["limits"]["write_iops"] == 200
