"""The lines written for cgroup v1 and v2, and v2's writes into a cgroup directory.

This host has cgroup v1 only: the v2 files (io.max, io.bfq.weight, io.weight) are
checked as contents, and `apply` is run against a plain directory standing in for a
v2 cgroup (a stand-in for what cannot run here; the v1 path runs for real in
test_qos_throttle.py and test_qos_weight.py).
"""

from pathlib import Path

import pytest

from contio.errors import QosError
from contio.qos import BlockDevice, Cgroup, IoLimits, apply, remove
from contio.qos import device as devices
from contio.qos.control_files import (
    BUFFERED_WRITES_NOTE,
    V1_BFQ_WEIGHT,
    V2_BFQ_WEIGHT,
    V2_IO_MAX,
    V2_IO_WEIGHT,
    v1_writes,
    v2_writes,
)
from contio.qos.controls import iocost_note, weight_mechanism

DISK = BlockDevice(259, 0, "nvme0n1")
ALL = IoLimits(read_bps=1 << 20, write_bps=10 << 20, read_iops=100, write_iops=50, weight=300)


def test_v1_lines():
    lines = {(w.file, w.value, w.reset) for w in v1_writes(DISK, ALL)}
    assert lines == {
        ("blkio.throttle.read_bps_device", "259:0 1048576", "259:0 0"),
        ("blkio.throttle.write_bps_device", "259:0 10485760", "259:0 0"),
        ("blkio.throttle.read_iops_device", "259:0 100", "259:0 0"),
        ("blkio.throttle.write_iops_device", "259:0 50", "259:0 0"),
        ("blkio.bfq.weight_device", "259:0 300", "259:0 default"),
    }


def test_v2_io_max_carries_only_the_limits_set():
    [line] = v2_writes(DISK, IoLimits(write_bps=10 << 20, read_iops=100))
    assert (line.file, line.value) == ("io.max", "259:0 wbps=10485760 riops=100")
    assert line.reset == "259:0 wbps=max riops=max"
    assert line.settings == ("write_bps", "read_iops")
    assert line.mechanism == V2_IO_MAX


def test_v2_all_controls_and_weight_files():
    writes = v2_writes(DISK, ALL)
    assert [(w.file, w.value) for w in writes] == [
        ("io.max", "259:0 rbps=1048576 wbps=10485760 riops=100 wiops=50"),
        ("io.bfq.weight", "259:0 300"),
    ]
    assert writes[1].mechanism == V2_BFQ_WEIGHT
    [iocost] = v2_writes(DISK, IoLimits(weight=300), bfq=False)
    assert (iocost.file, iocost.value, iocost.reset) == ("io.weight", "259:0 300", "259:0 default")
    assert iocost.mechanism == V2_IO_WEIGHT


def test_buffered_write_notes_differ_by_version():
    assert "does not throttle or weigh buffered writes" in BUFFERED_WRITES_NOTE["v1"]
    assert "buffered writes are controlled" in BUFFERED_WRITES_NOTE["v2"]


def test_v2_apply_and_remove_write_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Stand-in: no BFQ switch on a fake device, so the scheduler reads as already "bfq".
    monkeypatch.setattr(devices, "scheduler", lambda device: "bfq")
    monkeypatch.setattr(devices, "available_schedulers", lambda device: ["none", "bfq"])
    cgroup = Cgroup("v2", tmp_path)
    record = apply(cgroup, DISK, IoLimits(read_bps=5 << 20, weight=50))
    assert (tmp_path / "io.max").read_text() == "259:0 rbps=5242880"
    assert (tmp_path / "io.bfq.weight").read_text() == "259:0 50"
    data = record.as_dict()
    assert data["cgroup_version"] == "v2"
    assert [c["mechanism"] for c in data["controls"]] == [V2_IO_MAX, V2_BFQ_WEIGHT]
    assert data["notes"] == [BUFFERED_WRITES_NOTE["v2"]]
    assert data["replaced_scheduler"] is None
    remove(record)
    assert (tmp_path / "io.max").read_text() == "259:0 rbps=max"
    assert (tmp_path / "io.bfq.weight").read_text() == "259:0 default"
    assert record.controls == []


def test_a_weight_needs_bfq_on_v1_and_falls_back_to_io_weight_on_v2():
    assert weight_mechanism("v1", ["none", "mq-deadline", "bfq"]) == (V1_BFQ_WEIGHT, None)
    assert weight_mechanism("v2", ["none", "bfq"]) == (V2_BFQ_WEIGHT, None)
    assert weight_mechanism("v2", ["none", "mq-deadline"]) == (V2_IO_WEIGHT, None)
    mechanism, why = weight_mechanism("v1", ["none", "mq-deadline"])
    assert mechanism is None
    assert "needs the BFQ I/O scheduler" in why and "available: none, mq-deadline" in why
    assert "modprobe bfq" in why


def test_v2_without_bfq_weighs_through_io_weight_and_says_whether_iocost_is_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # Stand-in for a kernel without the bfq module (this one has it built in).
    monkeypatch.setattr(devices, "available_schedulers", lambda device: ["none", "mq-deadline"])
    monkeypatch.setattr(devices, "scheduler", lambda device: "mq-deadline")
    switched = []
    monkeypatch.setattr(devices, "set_scheduler", lambda device, name: switched.append(name))
    cgroup = Cgroup("v2", tmp_path / "group")
    cgroup.path.mkdir()
    record = apply(cgroup, DISK, IoLimits(weight=50))
    assert (cgroup.path / "io.weight").read_text() == "259:0 50"
    assert not (cgroup.path / "io.bfq.weight").exists() and switched == []
    assert [c.mechanism for c in record.controls] == [V2_IO_WEIGHT]
    assert any("io.weight (iocost): no BFQ on nvme0n1" in n for n in record.notes)
    qos_file = tmp_path / "io.cost.qos"
    qos_file.write_text("259:0 enable=1 ctrl=auto rpct=0.00 rlat=250000 wpct=0.00 wlat=250000\n")
    assert "iocost is enabled for it" in iocost_note(DISK, qos_file)
    assert "is not enabled" in iocost_note(DISK, tmp_path / "missing")


def test_v1_without_bfq_refuses_a_weight_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(devices, "available_schedulers", lambda device: ["none", "mq-deadline"])
    monkeypatch.setattr(devices, "scheduler", lambda device: "mq-deadline")
    with pytest.raises(QosError, match="needs the BFQ I/O scheduler"):
        apply(Cgroup("v1", tmp_path), DISK, IoLimits(weight=50, write_bps=1 << 20))
    assert list(tmp_path.iterdir()) == []
