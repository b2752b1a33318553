"""Paths and mounts → the whole disk's major:minor; scheduler selection (real loop devices)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from contio.errors import QosError
from contio.qos import device as devices
from contio.qos import resolve


def test_device_node_resolves_to_its_numbers(loop_disk):
    node, device = loop_disk
    rdev = os.stat(node).st_rdev
    assert (device.major, device.minor) == (os.major(rdev), os.minor(rdev))
    assert device.number == f"{os.major(rdev)}:{os.minor(rdev)}"
    assert f"/dev/{device.name}" == node


def test_file_on_a_mounted_file_system_resolves_to_the_loop_device(loop_disk, tmp_path: Path):
    node, device = loop_disk
    subprocess.run(["mkfs.ext4", "-q", "-F", node], check=True, capture_output=True)
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    subprocess.run(["mount", node, str(mount_point)], check=True)
    try:
        data = mount_point / "db" / "table.dat"
        data.parent.mkdir()
        data.write_bytes(b"x")
        assert resolve(data) == device
        assert resolve(mount_point) == device
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def test_paths_off_local_disks_are_refused_with_the_reason(tmp_path: Path):
    with pytest.raises(QosError, match=r"proc .* not a local block device"):
        resolve("/proc/self/status")
    with pytest.raises(QosError, match="does not exist"):
        resolve(tmp_path / "missing")
    with pytest.raises(QosError, match="is not a block device"):
        devices._device_number("/dev/null")


def test_scheduler_can_be_switched_and_restored(loop_disk):
    _, device = loop_disk
    before = devices.scheduler(device)
    assert before in devices.available_schedulers(device)
    other = "bfq" if before != "bfq" else "none"
    devices.set_scheduler(device, other)
    try:
        assert devices.scheduler(device) == other
    finally:
        devices.set_scheduler(device, before)
    assert devices.scheduler(device) == before
    with pytest.raises(QosError, match="scheduler 'cfq' is not available on loop"):
        devices.set_scheduler(device, "cfq")
