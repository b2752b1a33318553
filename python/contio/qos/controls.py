"""Apply block I/O controls to a cgroup, record what was applied, and remove them again.

`apply` writes the lines of `contio.qos.control_files` into the cgroup directory,
reads each file back to check the kernel took it, and returns an `AppliedControls`
record for the results: the mechanism per control, the values, the device, the
scheduler change, and the note on buffered writes. `remove` undoes one record.

A weight needs the BFQ scheduler on the device. `apply` selects it when another
scheduler is active and records the one it replaced; `remove` puts it back. It also
turns off BFQ's low-latency heuristics while weights are in force: they raise the
weight of queues that look interactive or soft real-time (new queues, and readers
that issue I/O in bursts, as any reader does while it waits for a CPU), which
overrides the cgroup weights — measured here on a loaded 2-core machine, a 100:25
pair got 0.24–0.38 of the bytes for the heavy group instead of 0.80; with the
heuristics off, 0.77–0.80. The
scheduler is per device, so whoever selected BFQ restores it: remove the control
that changed it last. Where the device offers no BFQ (the module not loaded: `modprobe
bfq`), cgroup v2 writes `io.weight` instead (the iocost controller; it divides the
device only where iocost is enabled for it, which the record's notes say), and cgroup
v1 has no weight at all: `weight_mechanism` says which, or why none, before anything
is applied.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import contio.qos.device as devices
from contio.errors import QosError
from contio.qos.control_files import (
    BUFFERED_WRITES_NOTE,
    V1_BFQ_WEIGHT,
    V2_BFQ_WEIGHT,
    V2_IO_WEIGHT,
    ControlWrite,
    writes_for,
)
from contio.qos.device import BlockDevice
from contio.qos.hierarchy import Cgroup, Version
from contio.qos.limits import IoLimits


@dataclass(frozen=True)
class AppliedControl:
    """One control file line that was written."""

    file: str
    value: str
    reset: str
    settings: tuple[str, ...]
    mechanism: str


@dataclass
class AppliedControls:
    """Everything `apply` did to one cgroup for one device; `as_dict` goes into results."""

    cgroup_version: Version
    cgroup: str
    device: str
    device_name: str
    limits: IoLimits
    controls: list[AppliedControl] = field(default_factory=list)
    scheduler: str = ""
    """The device's scheduler while the controls are in force."""
    replaced_scheduler: str | None = None
    """The scheduler `apply` replaced with BFQ (restored by `remove`), or None."""
    disabled_low_latency: bool = False
    """`apply` turned BFQ's low_latency off (`remove` turns it back on)."""
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["limits"] = self.limits.as_dict()
        return data


def _write(path: Path, line: str) -> None:
    try:
        with open(path, "w") as fh:  # one write(2) per line: control files parse per write
            fh.write(line)
    except FileNotFoundError as exc:
        raise QosError(f"{path} does not exist: this kernel lacks that control") from exc
    except OSError as exc:
        raise QosError(f"writing {line!r} to {path} failed: {exc.strerror}") from exc


def _check(path: Path, write: ControlWrite) -> None:
    """The kernel lists the device with the value written (weights and limits alike)."""
    number, _, values = write.value.partition(" ")
    lines = path.read_text().splitlines()
    ours = [ln for ln in lines if ln.split(" ", 1)[0] == number]
    expected = set(values.split())
    if not ours or not expected <= set(ours[0].split()[1:]):
        raise QosError(f"{path} does not show {write.value!r} after writing it: {lines}")


IOCOST_QOS = Path("/sys/fs/cgroup/io.cost.qos")
"""cgroup v2's per-device iocost settings (`MAJ:MIN enable=1 …`), in the root cgroup."""


def weight_mechanism(version: Version, schedulers: list[str]) -> tuple[str | None, str | None]:
    """How a weight is applied on a device offering `schedulers`: (mechanism, None), or
    (None, why it cannot be) — BFQ first; without it, v2's io.weight; v1 has nothing."""
    if "bfq" in schedulers:
        return (V1_BFQ_WEIGHT if version == "v1" else V2_BFQ_WEIGHT), None
    if version == "v2":
        return V2_IO_WEIGHT, None
    return None, (
        f"a weight needs the BFQ I/O scheduler, which this device does not offer "
        f"(available: {', '.join(schedulers) or 'none'}; `modprobe bfq` adds it, as "
        "scripts/setup-system.sh tries), and cgroup v1 has no other proportional control"
    )


def iocost_note(device: BlockDevice, qos_file: Path = IOCOST_QOS) -> str:
    """Whether io.weight can take effect on `device` (iocost enabled for it)."""
    try:
        lines = qos_file.read_text().splitlines()
    except OSError:
        lines = []
    enabled = any(ln.split(" ", 1)[0] == device.number and "enable=1" in ln.split() for ln in lines)
    state = "is enabled" if enabled else "is not enabled"
    return (
        f"weight applied through io.weight (iocost): no BFQ on {device.name}; iocost "
        f"{state} for it in {qos_file}, and io.weight divides the device only when it is"
    )


def _ensure_bfq(device: BlockDevice) -> str | None:
    """Select BFQ; returns the scheduler it replaced, None when BFQ was already active."""
    current = devices.scheduler(device)
    if current == "bfq":
        return None
    devices.set_scheduler(device, "bfq")
    return current


LOW_LATENCY_NOTE = (
    "BFQ low_latency turned off on the device while weights are in force: its raising "
    "of interactive and soft real-time queues would override the cgroup weights"
)


def _disable_low_latency(device: BlockDevice) -> bool:
    """Turn BFQ's low_latency off; whether it was on (and so must be turned back on)."""
    if devices.bfq_low_latency(device):
        devices.set_bfq_low_latency(device, False)
        return True
    return False


def apply(cgroup: Cgroup, device: BlockDevice, limits: IoLimits) -> AppliedControls:
    """Write `limits` for `device` into `cgroup`; on failure nothing stays applied."""
    record = AppliedControls(
        cgroup.version, str(cgroup.path), device.number, device.name, limits,
        notes=[BUFFERED_WRITES_NOTE[cgroup.version]],
    )  # fmt: skip
    if limits.weight is not None:
        mechanism, why = weight_mechanism(cgroup.version, devices.available_schedulers(device))
        if mechanism is None:
            raise QosError(f"{device.name}: {why}")
        if mechanism != V2_IO_WEIGHT:
            record.replaced_scheduler = _ensure_bfq(device)
            record.disabled_low_latency = _disable_low_latency(device)
            if devices.bfq_low_latency(device) is False:
                record.notes.append(LOW_LATENCY_NOTE)
        else:
            record.notes.append(iocost_note(device))
    record.scheduler = devices.scheduler(device)
    try:
        for write in writes_for(cgroup.version, device, limits, bfq=record.scheduler == "bfq"):
            path = cgroup.path / write.file
            _write(path, write.value)
            record.controls.append(AppliedControl(**asdict(write)))
            _check(path, write)
    except BaseException:
        remove(record)
        raise
    return record


def remove(record: AppliedControls) -> None:
    """Reset every control of `record` (last first) and restore a replaced scheduler."""
    root = Path(record.cgroup)
    errors = []
    for control in reversed(record.controls):
        if not root.exists():
            break  # the cgroup is gone, and its controls with it
        if control.mechanism in _BFQ_WEIGHTS and not _runs_bfq(record):
            # Another group's removal gave the device its scheduler back first: the BFQ
            # weights went with BFQ, and its weight file refuses writes (EOPNOTSUPP).
            continue
        try:
            _write(root / control.file, control.reset)
        except QosError as exc:
            errors.append(str(exc))
    record.controls.clear()
    if record.disabled_low_latency:  # before the scheduler: the setting is BFQ's
        devices.set_bfq_low_latency(_device_of(record), True)
        record.disabled_low_latency = False
    if record.replaced_scheduler is not None:
        device = _device_of(record)
        devices.set_scheduler(device, record.replaced_scheduler)
        record.replaced_scheduler = None
    if errors:
        raise QosError("; ".join(errors))


_BFQ_WEIGHTS = (V1_BFQ_WEIGHT, V2_BFQ_WEIGHT)


def _runs_bfq(record: AppliedControls) -> bool:
    try:
        return devices.scheduler(_device_of(record)) == "bfq"
    except (OSError, QosError):
        return True  # cannot tell: try the reset, which reports what is wrong


def _device_of(record: AppliedControls) -> BlockDevice:
    major, minor = (int(n) for n in record.device.split(":"))
    return BlockDevice(major, minor, record.device_name)
