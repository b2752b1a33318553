"""The host's counters from /proc: CPU time (`/proc/stat`), each block device's I/O
(`/proc/diskstats`) and each network interface's bytes (`/proc/net/dev`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device's size


@dataclass(frozen=True)
class DiskCounters:
    """Cumulative counters of one block device."""

    reads: int
    writes: int
    read_bytes: int
    write_bytes: int
    busy_ms: int
    """Milliseconds the device had I/O in flight (`io_ticks`): utilization's numerator."""
    read_merges: int = 0
    write_merges: int = 0
    """Requests the block layer merged into an adjacent one before issuing it: its own
    sign of sequential I/O (random requests are not adjacent, so they do not merge)."""
    queue_ms: int = 0
    """Milliseconds of I/O in flight summed over the requests (`time_in_queue`, weighted):
    over wall time, the mean number of requests in flight (queue depth)."""


@dataclass(frozen=True)
class HostReading:
    """Cumulative host counters at one instant."""

    cpu_busy_ticks: int
    cpu_total_ticks: int
    disks: dict[str, DiskCounters]
    net: dict[str, tuple[int, int]]
    """Interface → (received bytes, sent bytes)."""


def read_cpu(text: str) -> tuple[int, int]:
    """(busy, total) clock ticks from the `cpu` line of /proc/stat."""
    for line in text.splitlines():
        if line.startswith("cpu "):
            values = [int(v) for v in line.split()[1:]]
            # user nice system idle iowait irq softirq steal (guest* are inside user)
            idle = values[3] + (values[4] if len(values) > 4 else 0)
            total = sum(values[:8])
            return total - idle, total
    raise ValueError("/proc/stat has no cpu line")


def read_diskstats(text: str) -> dict[str, DiskCounters]:
    """Whole devices and partitions of /proc/diskstats, without idle loop/ram devices."""
    disks = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) < 14:
            continue
        name = f[2]
        reads, writes = int(f[3]), int(f[7])
        if name.startswith("ram") or (name.startswith("loop") and reads + writes == 0):
            continue
        disks[name] = DiskCounters(
            reads=reads,
            writes=writes,
            read_bytes=int(f[5]) * SECTOR_BYTES,
            write_bytes=int(f[9]) * SECTOR_BYTES,
            busy_ms=int(f[12]),
            read_merges=int(f[4]),
            write_merges=int(f[8]),
            queue_ms=int(f[13]),
        )
    return disks


def read_net_dev(text: str) -> dict[str, tuple[int, int]]:
    """Interface → (rx bytes, tx bytes) from /proc/net/dev."""
    net = {}
    for line in text.splitlines()[2:]:
        name, _, rest = line.partition(":")
        fields = rest.split()
        if len(fields) >= 9:
            net[name.strip()] = (int(fields[0]), int(fields[8]))
    return net


def read_host(proc: Path = PROC) -> HostReading:
    """The host's counters now."""
    busy, total = read_cpu((proc / "stat").read_text())
    return HostReading(
        cpu_busy_ticks=busy,
        cpu_total_ticks=total,
        disks=read_diskstats((proc / "diskstats").read_text()),
        net=read_net_dev((proc / "net" / "dev").read_text()),
    )
