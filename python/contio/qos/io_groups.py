"""Block I/O groups of a run on top of `contio.qos`: one cgroup per container position.

Whether a cell's groups can be had is checked before the cell starts
(`unavailable_reason`, with the disk they apply to): no root, no blkio/io hierarchy, a
path off any local disk, or a weight without BFQ under cgroup v1 skip the cell with the
reason; cgroup v2 without BFQ weighs through io.weight (recorded per control).

Paper 004's VNodes on one machine: container k of a cell runs in cgroup
`<blkio root>/contio/<run>-g<k>` (v1; v2 `io` likewise), whose limits are the k-th
group of the cell's `io_controls` level, on the block device of the container's data
directory (or the level's `device`). A group is made on first use and kept across
cells and repetitions; when a later cell asks other limits of it, the old ones are
removed before the new are written. `release()` removes every control (restoring the
scheduler BFQ replaced) and every cgroup: the runner calls it at the end, on a
failure and on an interrupt.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from contio import qos
from contio.errors import QosError
from contio.qos.calibration import CALIBRATION_BYTES, Calibration, calibrate
from contio.qos.control_files import BUFFERED_WRITES_NOTE
from contio.qos.control_spec import LOCAL_CONTROLS, IoControlSet, IoGroupControls
from contio.qos.controls import weight_mechanism
from contio.qos.device import available_schedulers, file_system_disks


@dataclass
class _Group:
    group: qos.ProcessGroup
    applied: qos.AppliedControls | None = None
    key: tuple[str, qos.IoLimits] | None = None


class CgroupIoController:
    """Applies `io_controls` groups to local processes through cgroup files."""

    def __init__(self, prefix: str | None = None, calibration_bytes: int = CALIBRATION_BYTES):
        self.prefix = prefix or f"run{os.getpid()}"
        self.calibration_bytes = calibration_bytes
        """Size of the direct-I/O calibration for bandwidths in percent."""
        self._groups: dict[int, _Group] = {}
        self._calibrations: dict[str, Calibration] = {}
        self.version: Literal["v1", "v2"] | None
        self._reason: str | None
        try:
            self.version, _ = qos.detect()
        except QosError as exc:
            self.version, self._reason = None, str(exc)
        else:
            self._reason = None if os.geteuid() == 0 else "cgroup files can only be written as root"

    @property
    def mechanism(self) -> str:
        if self.version == "v1":
            return "cgroup-v1 blkio (blkio.throttle.*, blkio.bfq.weight_device with BFQ)"
        if self.version == "v2":
            return "cgroup-v2 io (io.max, io.bfq.weight with BFQ or io.weight)"
        return "none"

    @property
    def note(self) -> str:
        return BUFFERED_WRITES_NOTE[self.version] if self.version else ""

    def unavailable_reason(self, controls: IoControlSet, device: str | None = None) -> str | None:
        """None when the groups can be made here: root, a blkio/io hierarchy, and — given
        the `device` (or a path on it) the limits will apply to — a disk that takes them
        (a weight needs BFQ on cgroup v1; v2 falls back to io.weight)."""
        if controls.empty:
            return None
        if self._reason is not None or self.version is None:
            return self._reason
        limited = [g for g in controls.groups if not g.empty]
        if not limited or device is None:
            return None
        try:
            spanned = file_system_disks(device)  # one disk: `qos.resolve(device)` alone
            disk = spanned[0]
            schedulers = available_schedulers(disk)
        except (QosError, OSError) as exc:
            return f"io_controls: {exc}"
        if len(spanned) > 1:
            # A cgroup limit names one disk: on one member of a stripe it would hold a
            # fraction of the group's I/O and let the rest through.
            names = ", ".join(d.name for d in spanned)
            return (
                f"io_controls: the data's file system spans {len(spanned)} disks ({names}); "
                "a limit or weight applies to one disk, so control a single-disk backend"
            )
        if any(g.weight is not None for g in limited):
            _, why = weight_mechanism(self.version, schedulers)
            if why is not None:
                return f"io_controls on {disk.name}: {why}"
        return None

    def prepare(
        self, group: IoGroupControls, device: str | None, position: int = 1
    ) -> dict[str, Any]:
        """Group `position` with `group`'s limits on `device`'s disk, made before any
        process of the phase starts: switching a disk's scheduler (BFQ for weights)
        or rewriting limits while a phase's I/O is in flight disturbs what is measured."""
        entry = self._groups.get(position)
        if entry is None:
            entry = _Group(qos.ProcessGroup.create(f"{self.prefix}-g{position}"))
            self._groups[position] = entry
        record: dict[str, Any] = {
            "cgroup": str(entry.group.cgroup.path),
            "mechanism": self.mechanism,
        }
        if group.relative:
            # Percents of the device's bandwidth: measured once per disk, at the first
            # group that needs it (before any engine of the run's controlled cells).
            calibration = self._calibration(device)
            record["requested"] = {
                k: v for k, v in group.model_dump().items() if isinstance(v, str)
            }
            record["calibration"] = calibration.as_dict()
            group = group.resolved(calibration.read_bps, calibration.write_bps)
        limits = qos.IoLimits(**group.model_dump(include=set(LOCAL_CONTROLS)))
        if not limits.empty:
            if device is None:
                raise QosError("io_controls: no device to control; give the level a 'device'")
            disk = qos.resolve(device)
            applied = entry.applied
            if applied is None or entry.key != (disk.number, limits):
                self._remove_controls(entry)
                applied = entry.applied = qos.apply(entry.group.cgroup, disk, limits)
                entry.key = (disk.number, limits)
            record.update(applied.as_dict())
        else:
            self._remove_controls(entry)
            record["notes"] = [self.note]
        return record

    def _calibration(self, device: str | None) -> Calibration:
        if device is None or not Path(device).is_dir():
            raise QosError(
                "io_controls: a bandwidth in percent is measured in a directory on the "
                f"device; {device!r} is not one (leave the level's `device` unset)"
            )
        key = qos.resolve(device).number
        if key not in self._calibrations:
            self._calibrations[key] = calibrate(Path(device), self.calibration_bytes)
        return self._calibrations[key]

    def popen(self, position: int, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen:
        """Start `argv` inside group `position`: the child joins before exec, so rings and
        worker threads it creates (io_uring's io-wq) are charged to the group too."""
        return self._groups[position].group.popen(argv, **kwargs)

    def _remove_controls(self, entry: _Group) -> None:
        if entry.applied is not None:
            applied, entry.applied, entry.key = entry.applied, None, None
            qos.remove(applied)

    def release(self) -> None:
        """Remove every control (last applied first) and every group; errors after all."""
        errors = []
        for position in sorted(self._groups, reverse=True):
            entry = self._groups.pop(position)
            try:
                self._remove_controls(entry)
            except QosError as exc:
                errors.append(str(exc))
            try:
                entry.group.remove()
            except OSError as exc:
                errors.append(f"{entry.group.cgroup.path}: {exc}")
        if errors:
            raise QosError("releasing block I/O groups: " + "; ".join(errors))


def device_of(controls: IoControlSet | None, data_dir: Path | None) -> str | None:
    """What to resolve to a disk: the level's `device`, else the container's data dir."""
    if controls is not None and controls.device:
        return controls.device
    return str(data_dir) if data_dir is not None else None


def backend_location(backend: object) -> Path | None:
    """A path on the disk a provisioned backend keeps its data on (None: unknown)."""
    data_root = getattr(backend, "data_root", None)
    if callable(data_root):
        try:
            return Path(data_root())
        except Exception:  # noqa: BLE001 - not provisioned the way this expects: unknown
            return None
    base = getattr(backend, "base", None)
    return Path(base) if base is not None else None
