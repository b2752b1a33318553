"""Throttles as a percent of the device's bandwidth (`read_bps: 25%`): validated with
errors naming the field, and resolved against a direct-I/O calibration on a real loop
device when the group is made, both recorded with the group."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.qos.control_spec import IoGroupControls
from contio.qos.io_groups import CgroupIoController

SPEC = """name: t
backends: {a: {type: local-dir}}
io_controls:
  p: {groups: [{read_bps: READ, write_bps: 10000000}, {}]}
factors: {backend: [a], io_controls: [p], workload: [workloada]}
"""


def spec_problems(read: str) -> list[str]:
    with pytest.raises(InvalidSpecError) as caught:
        parse_spec_text(SPEC.replace("READ", read), "t.yaml", Path.cwd())
    return [str(p) for p in caught.value.problems]


def test_a_percent_reads_and_resolves_against_the_measured_bandwidth():
    spec = parse_spec_text(SPEC.replace("READ", '"25 %"'), "t.yaml", Path.cwd())
    group = spec.io_controls["p"].groups[0]
    assert (group.read_bps, group.write_bps, group.relative) == ("25%", 10_000_000, True)
    resolved = group.resolved(read_bps=400e6, write_bps=1e9)
    assert (resolved.read_bps, resolved.write_bps, resolved.relative) == (
        100_000_000,
        10_000_000,
        False,
    )
    assert not IoGroupControls(write_bps=5).relative


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"150%"', "a percent of the device's bandwidth is in (0, 100], not 150%"),
        ('"0%"', "a percent of the device's bandwidth is in (0, 100], not 0%"),
        ("fast", "'fast' is neither bytes/s (a positive integer) nor a percent"),
    ],
)
def test_a_bad_bandwidth_names_its_field(value, message):
    found = spec_problems(value)
    assert any(p.startswith("io_controls.p.groups[0].read_bps") and message in p for p in found), (
        found
    )


@pytest.fixture
def mounted_loop(loop_disk, tmp_path) -> Path:
    """The fixture's loop device with a fresh ext4 file system, mounted for the test."""
    node, _ = loop_disk
    if shutil.which("mkfs.ext4") is None:
        pytest.skip("missing mkfs.ext4")
    subprocess.run(["mkfs.ext4", "-q", "-F", node], check=True)
    mount = tmp_path / "mnt"
    mount.mkdir()
    subprocess.run(["mount", node, str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_percent_throttle_is_resolved_against_a_calibration_on_the_device(mounted_loop):
    controller = CgroupIoController(prefix="test-percent", calibration_bytes=16 << 20)
    try:
        record = controller.prepare(
            IoGroupControls(read_bps="20%", write_bps="50%"), str(mounted_loop), 1
        )
        again = controller.prepare(IoGroupControls(write_bps="10%"), str(mounted_loop), 2)
    finally:
        controller.release()
    calibration = record["calibration"]
    assert calibration["bytes"] == 16 << 20
    assert calibration["read_bps"] > 1e6 and calibration["write_bps"] > 1e6
    assert record["requested"] == {"read_bps": "20%", "write_bps": "50%"}
    assert record["limits"]["read_bps"] == round(0.2 * calibration["read_bps"])
    assert record["limits"]["write_bps"] == round(0.5 * calibration["write_bps"])
    assert again["calibration"] == calibration  # measured once per device
    assert again["limits"]["write_bps"] == round(0.1 * calibration["write_bps"])
    assert not list(mounted_loop.glob(".contio-calibration-*"))
