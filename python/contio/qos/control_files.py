"""What to write into which cgroup file, for cgroup v1 `blkio` and cgroup v2 `io`.

Pure functions: they return the lines, `contio.qos.controls` writes them.

cgroup v1 (Documentation/admin-guide/cgroup-v1/blkio-controller.rst):
- `blkio.throttle.{read,write}_{bps,iops}_device`: "MAJ:MIN VALUE"; "MAJ:MIN 0" removes.
- `blkio.bfq.weight_device`: "MAJ:MIN WEIGHT" (1–1000), "MAJ:MIN default" removes; it
  exists only while BFQ is the device's scheduler. (CFQ's `blkio.weight`, which
  Docker's `--blkio-weight` writes, went with CFQ in Linux 5.0.)

cgroup v2 (Documentation/admin-guide/cgroup-v2.rst):
- `io.max`: "MAJ:MIN rbps=N wbps=N riops=N wiops=N" (only the keys set); "max" removes.
- `io.bfq.weight`: "MAJ:MIN WEIGHT" (1–1000) under BFQ, "MAJ:MIN default" removes;
  otherwise `io.weight` (the iocost controller), same syntax, 1–10000.
"""

from __future__ import annotations

from dataclasses import dataclass

from contio.qos.device import BlockDevice
from contio.qos.hierarchy import Version
from contio.qos.limits import IoLimits

_V1_THROTTLE_FILES = {
    "read_bps": "blkio.throttle.read_bps_device",
    "write_bps": "blkio.throttle.write_bps_device",
    "read_iops": "blkio.throttle.read_iops_device",
    "write_iops": "blkio.throttle.write_iops_device",
}
_V2_KEYS = {"read_bps": "rbps", "write_bps": "wbps", "read_iops": "riops", "write_iops": "wiops"}

V1_THROTTLE = "cgroup-v1 blkio.throttle"
V1_BFQ_WEIGHT = "cgroup-v1 blkio.bfq.weight_device (BFQ scheduler)"
V2_IO_MAX = "cgroup-v2 io.max"
V2_BFQ_WEIGHT = "cgroup-v2 io.bfq.weight (BFQ scheduler)"
V2_IO_WEIGHT = "cgroup-v2 io.weight (iocost)"


@dataclass(frozen=True)
class ControlWrite:
    """One line for one control file, and the line that undoes it."""

    file: str
    value: str
    reset: str
    settings: tuple[str, ...]
    """The IoLimits fields this line carries (io.max carries several)."""
    mechanism: str


def v1_writes(device: BlockDevice, limits: IoLimits) -> list[ControlWrite]:
    """The cgroup v1 lines for `limits` on `device`."""
    dev = device.number
    writes = [
        ControlWrite(_V1_THROTTLE_FILES[name], f"{dev} {value}", f"{dev} 0", (name,), V1_THROTTLE)
        for name, value in limits.throttles.items()
    ]
    if limits.weight is not None:
        writes.append(
            ControlWrite(
                "blkio.bfq.weight_device",
                f"{dev} {limits.weight}",
                f"{dev} default",
                ("weight",),
                V1_BFQ_WEIGHT,
            )
        )
    return writes


def v2_writes(device: BlockDevice, limits: IoLimits, bfq: bool = True) -> list[ControlWrite]:
    """The cgroup v2 lines for `limits` on `device`; `bfq` picks io.bfq.weight over io.weight."""
    dev = device.number
    writes = []
    throttles = limits.throttles
    if throttles:
        keys = " ".join(f"{_V2_KEYS[name]}={value}" for name, value in throttles.items())
        reset = " ".join(f"{_V2_KEYS[name]}=max" for name in throttles)
        writes.append(
            ControlWrite("io.max", f"{dev} {keys}", f"{dev} {reset}", tuple(throttles), V2_IO_MAX)
        )
    if limits.weight is not None:
        file, mechanism = ("io.bfq.weight", V2_BFQ_WEIGHT) if bfq else ("io.weight", V2_IO_WEIGHT)
        writes.append(
            ControlWrite(file, f"{dev} {limits.weight}", f"{dev} default", ("weight",), mechanism)
        )
    return writes


def writes_for(
    version: Version, device: BlockDevice, limits: IoLimits, bfq: bool = True
) -> list[ControlWrite]:
    """The lines for either hierarchy."""
    return v1_writes(device, limits) if version == "v1" else v2_writes(device, limits, bfq)


BUFFERED_WRITES_NOTE = {
    "v1": (
        "cgroup v1 does not throttle or weigh buffered writes: dirty pages are written back "
        "later by kernel flusher threads outside the cgroup. Only direct I/O (O_DIRECT), "
        "reads and synchronous writes are controlled; measure writes with direct I/O."
    ),
    "v2": (
        "cgroup v2 charges writeback to the cgroup that dirtied the pages, so buffered "
        "writes are controlled too (when the memory controller is enabled for the cgroup)."
    ),
}
