"""Every block request one disk completes, from the kernel's `block:block_rq_complete`
tracepoint: a request-size histogram and the share of sequential requests, which
`/proc/diskstats` cannot give (it counts requests and merges, not sizes or offsets).

The tracepoint is read through tracefs in an instance of contio's own
(`/sys/kernel/tracing/instances/contio-…`, removed at the end), filtered in the kernel to
the one device, so other tracing on the host is left alone and the reader sees only the
disk's requests. Reading `trace_pipe` in a thread keeps the ring buffer from
overflowing at tens of thousands of requests per second. Needs root and tracefs (the
kernel's `CONFIG_BLK_DEV_IO_TRACE`): without them `BlockRequestTrace.start` raises
`TraceUnavailable` saying why, and the caller goes on without sizes.

A request is sequential when it is adjacent to one of the last requests in the same
direction (read or write): the block layer's own view, after merging, of what reached
the disk, for one stream or several interleaved.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import subprocess
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from contio.samplers.phase import member_disks

REQUESTS_JSON = "run-requests.json"
"""Beside a traced run phase's output: `RequestTrace.finish`'s document."""
TRACEFS = Path("/sys/kernel/tracing")
EVENT = "events/block/block_rq_complete"
SECTOR = 512
BUCKETS = tuple(4096 * 2**k for k in range(9))
"""Upper bounds of the histogram's buckets: 4 KiB, 8 KiB, … 1 MiB; larger requests go
in the last bucket, `>1M`."""
RECENT = 32
"""Requests per direction a new one is checked against for adjacency."""
_LINE = re.compile(r"block_rq_complete: (\d+),(\d+) (\S+) \(.*?\) (\d+) \+ (\d+)")


class TraceUnavailable(Exception):
    """The tracepoint cannot be read here (no tracefs, not root, no block tracing)."""


def bucket_label(size: int) -> str:
    """The histogram key of a request of `size` bytes: `4K`, `8K`, … `1M`, `>1M`."""
    for bound in BUCKETS:
        if size <= bound:
            return f"{bound // 1024}K" if bound < 1024 * 1024 else f"{bound // 1024 // 1024}M"
    return ">1M"


@dataclass
class RequestStats:
    """What the disk completed while traced."""

    sizes: dict[str, int] = field(default_factory=dict)
    """Requests per size bucket (`bucket_label`)."""
    requests: int = 0
    sequential: int = 0
    """Requests adjacent to one of the last `RECENT` of their direction (see `add`)."""
    _recent: dict[str, deque[list[int]]] = field(default_factory=dict)
    """Per direction, the last requests as [start, end, counted]."""

    def add(self, direction: str, sector: int, sectors: int) -> None:
        """Count a completed request. Requests adjacent to one another among the last
        `RECENT` of a direction are sequential, both of them (the first of a run is
        known only when the second comes): several sequential streams interleave on one
        disk (copies of an application), and the halves of a split request complete in
        either order."""
        self.requests += 1
        label = bucket_label(sectors * SECTOR)
        self.sizes[label] = self.sizes.get(label, 0) + 1
        end = sector + sectors
        recent = self._recent.setdefault(direction, deque(maxlen=RECENT))
        neighbours = [r for r in recent if sector == r[1] or end == r[0]]
        for neighbour in neighbours:
            if not neighbour[2]:
                neighbour[2] = 1
                self.sequential += 1
        if neighbours:
            self.sequential += 1
        recent.append([sector, end, 1 if neighbours else 0])

    def as_dict(self) -> dict[str, object]:
        return {"sizes": dict(self.sizes), "requests": self.requests,
                "sequential": self.sequential}  # fmt: skip


def parse_line(line: str, device: tuple[int, int]) -> tuple[str, int, int] | None:
    """(direction `R`/`W`, first sector, sectors) of a completion line of `device`; None
    for another device's, a flush or anything else."""
    found = _LINE.search(line)
    if found is None or (int(found[1]), int(found[2])) != device:
        return None
    rwbs, sectors = found[3], int(found[5])
    direction = "W" if "W" in rwbs else ("R" if "R" in rwbs else None)
    if direction is None or sectors == 0:
        return None
    return direction, int(found[4]), sectors


def _device_number(name: str) -> tuple[int, int]:
    text = (Path("/sys/class/block") / name / "dev").read_text().strip()
    major, minor = text.split(":")
    return int(major), int(minor)


def tracefs() -> Path:
    """tracefs, mounted if it is not yet (`TraceUnavailable` when it cannot be)."""
    if (TRACEFS / "instances").is_dir():
        return TRACEFS
    try:
        subprocess.run(["mount", "-t", "tracefs", "tracefs", str(TRACEFS)],
                       check=True, capture_output=True, timeout=10)  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        raise TraceUnavailable(f"tracefs cannot be mounted at {TRACEFS} ({exc})") from None
    if not (TRACEFS / "instances").is_dir():
        raise TraceUnavailable(f"{TRACEFS} has no instances: tracing is not in this kernel")
    return TRACEFS


class BlockRequestTrace:
    """The requests disk `device` (a kernel name: `loop3`, `vda`) completes between
    `start` and `stop`."""

    def __init__(self, device: str):
        self.device = device
        self.stats = RequestStats()
        self._instance: Path | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        try:
            number = _device_number(self.device)
        except (OSError, ValueError) as exc:
            raise TraceUnavailable(f"no block device {self.device!r} ({exc})") from None
        root = tracefs()
        instance = root / "instances" / f"contio-{os.getpid()}-{self.device}"
        try:
            instance.mkdir()
            (instance / EVENT / "filter").write_text(f"dev == {(number[0] << 20) | number[1]}\n")
            (instance / EVENT / "enable").write_text("1\n")
        except OSError as exc:
            with contextlib.suppress(OSError):
                instance.rmdir()
            raise TraceUnavailable(f"cannot trace {self.device} ({exc.strerror or exc})") from None
        self._instance = instance
        self._thread = threading.Thread(
            target=self._read, args=(instance / "trace_pipe", number), daemon=True
        )
        self._thread.start()

    def _read(self, pipe: Path, device: tuple[int, int]) -> None:
        fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
        pending = b""
        try:
            while True:
                ready, _, _ = select.select([fd], [], [], 0.2)
                chunk = b""
                if ready:
                    with contextlib.suppress(BlockingIOError):
                        chunk = os.read(fd, 1 << 16)
                if not chunk and self._stop.is_set():
                    return
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()
                for line in lines:
                    found = parse_line(line.decode(errors="replace"), device)
                    if found is not None:
                        self.stats.add(*found)
        finally:
            os.close(fd)

    def stop(self) -> RequestStats:
        """Stop tracing, read what is left, remove the instance; the stats."""
        instance, self._instance = self._instance, None
        if instance is None:
            return self.stats
        with contextlib.suppress(OSError):
            (instance / EVENT / "enable").write_text("0\n")
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        with contextlib.suppress(OSError):
            remove_instance(instance)
        return self.stats


class RequestTrace:
    """A run phase's trace of its data disk, or why there is none (never raises: a
    profile without request sizes is still a profile)."""

    def __init__(self, device: str | None, trace: BlockRequestTrace | None, reason: str | None):
        self.device, self._trace, self.reason = device, trace, reason

    @classmethod
    def begin(cls, device: str | None) -> RequestTrace:
        """Trace `device` (a `disk_device`). Of a stripe's members (`loop0+loop1`) the
        first is traced: each member sees the same pattern, at its share of the rate."""
        if device is None:
            return cls(None, None, "no single disk holds the data")
        trace = BlockRequestTrace(member_disks(device)[0])
        try:
            trace.start()
        except TraceUnavailable as exc:
            return cls(device, None, str(exc))
        return cls(device, trace, None)

    def finish(self) -> dict[str, object]:
        """`{device, sizes, requests, sequential}`, or `{device, unavailable}`."""
        if self._trace is None:
            return {"device": self.device, "unavailable": self.reason}
        return {"device": self.device, **self._trace.stop().as_dict()}


def dead_instances() -> list[Path]:
    """Instances whose contio process is gone (a killed profile's): `contio cleanup`
    removes them."""
    root = TRACEFS / "instances"
    if not root.is_dir():
        return []
    found = []
    for instance in sorted(root.glob("contio-*")):
        pid = instance.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            found.append(instance)
    return found


def remove_instance(instance: Path) -> None:
    """Stop an instance's tracing and remove it."""
    with contextlib.suppress(OSError):
        (instance / EVENT / "enable").write_text("0\n")
    instance.rmdir()
