"""One container's resource counters, read from its cgroup (v1 and v2).

cgroup v1 (this project's machines, Docker's cgroupfs driver): `cpuacct.usage` (ns) and
`memory.usage_in_bytes`, page cache included, since the page cache a database fills is
part of what a memory limit bounds. Block I/O comes from `blkio.throttle.io_service_bytes` / `io_serviced`,
which count every bio the container submits (under v1, buffered writes are charged to
the kernel's flusher, so they show only when written with O_DIRECT or fsync'd by the
container's own threads). cgroup v2: `cpu.stat` usage_usec, `memory.current`, `io.stat`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC = Path("/proc")


@dataclass
class IoCounters:
    """Cumulative block I/O of one device."""

    read_bytes: int = 0
    write_bytes: int = 0
    read_ops: int = 0
    write_ops: int = 0


@dataclass
class CgroupReading:
    """Cumulative counters of one container at one instant."""

    cpu_ns: int
    memory_bytes: int
    io: dict[str, IoCounters] = field(default_factory=dict)
    """Keyed by device number `major:minor`."""
    task_read_bytes: int = 0
    task_write_bytes: int = 0
    """Storage I/O the container's processes caused (`/proc/PID/io` read_bytes and
    write_bytes, summed): counted whatever the device, even where the per-device blkio
    counters stay at zero (see `ContainerCgroup.read`)."""
    major_faults: int = 0
    """Page faults that had to read from disk (`pgmajfault`). A process kept at its memory
    limit evicts its own code and mapped pages and faults them back in: a steady rate of
    these says the cell measured memory pressure, not the storage under test."""
    memory_limit_bytes: int | None = None
    """The cgroup's memory limit; None without one (and for processes)."""


class ContainerGone(Exception):
    """The container's cgroup no longer exists (it exited)."""


def _candidates(container_id: str) -> list[tuple[str, Path]]:
    """(layout, directory) pairs where Docker may have put this container's cgroup."""
    scope = f"docker-{container_id}.scope"
    return [
        ("v1", CGROUP_ROOT / "cpuacct" / "docker" / container_id),
        ("v1", CGROUP_ROOT / "cpuacct" / "system.slice" / scope),
        ("v2", CGROUP_ROOT / "system.slice" / scope),
        ("v2", CGROUP_ROOT / "docker" / container_id),
    ]


class ContainerCgroup:
    """Reads a running container's counters; `ContainerGone` once it has exited."""

    def __init__(self, container_id: str):
        self.container_id = container_id
        for layout, path in _candidates(container_id):
            if path.is_dir():
                self.layout = layout
                # v1 keeps one tree per controller with the same relative path.
                self.relative = path.relative_to(
                    CGROUP_ROOT / "cpuacct" if layout == "v1" else CGROUP_ROOT
                )
                return
        raise ContainerGone(f"no cgroup found for container {container_id[:12]}")

    def _file(self, controller: str, name: str) -> Path:
        if self.layout == "v1":
            return CGROUP_ROOT / controller / self.relative / name
        return CGROUP_ROOT / self.relative / name

    def _text(self, controller: str, name: str) -> str:
        try:
            return self._file(controller, name).read_text()
        except (FileNotFoundError, ProcessLookupError, OSError) as exc:
            raise ContainerGone(f"container {self.container_id[:12]}: {exc}") from None

    def read(self) -> CgroupReading:
        """The container's counters now.

        Under cgroup v1 this kernel fills `blkio.throttle.io_service_bytes` only for
        devices that have a throttle rule (observed: the root cgroup lists only such a
        loop device, not the busy system disk), so the per-device counters can stay at
        zero while the container writes; the per-process counters do not.
        """
        task_read, task_write = self._task_io()
        if self.layout == "v1":
            return CgroupReading(
                task_read_bytes=task_read,
                task_write_bytes=task_write,
                cpu_ns=int(self._text("cpuacct", "cpuacct.usage")),
                memory_bytes=int(self._text("memory", "memory.usage_in_bytes")),
                # total_: the container's cgroup and any below it, as usage_in_bytes.
                major_faults=_keyed(self._text("memory", "memory.stat")).get("total_pgmajfault", 0),
                memory_limit_bytes=self.memory_limit(),
                io=parse_v1_io(
                    self._text("blkio", "blkio.throttle.io_service_bytes"),
                    self._text("blkio", "blkio.throttle.io_serviced"),
                ),
            )
        usage_usec = _keyed(self._text("", "cpu.stat")).get("usage_usec", 0)
        return CgroupReading(
            task_read_bytes=task_read,
            task_write_bytes=task_write,
            cpu_ns=usage_usec * 1000,
            memory_bytes=int(self._text("", "memory.current")),
            major_faults=_keyed(self._text("", "memory.stat")).get("pgmajfault", 0),
            memory_limit_bytes=self.memory_limit(),
            io=parse_v2_io(self._text("", "io.stat")),
        )

    def memory_limit(self) -> int | None:
        """The cgroup's memory limit in bytes; None when it has none.

        v1 writes "no limit" as the largest page-aligned value (about 2^63), v2 as `max`.
        """
        if self.layout == "v1":
            value = int(self._text("memory", "memory.limit_in_bytes"))
            return None if value >= 1 << 62 else value
        text = self._text("", "memory.max").strip()
        return None if text == "max" else int(text)

    def _task_io(self) -> tuple[int, int]:
        """(read_bytes, write_bytes) of /proc/PID/io summed over the cgroup's processes."""
        read = write = 0
        for pid in self._text("cpuacct", "cgroup.procs").split():
            try:
                counters = _keyed((PROC / pid / "io").read_text().replace(":", ""))
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                continue  # the process exited between the listing and the read
            read += counters.get("read_bytes", 0)
            write += counters.get("write_bytes", 0)
        return read, write


def _keyed(text: str) -> dict[str, int]:
    pairs = (line.split() for line in text.splitlines())
    return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].isdigit()}


def parse_v1_io(service_bytes: str, serviced: str) -> dict[str, IoCounters]:
    """Parse v1 `MAJ:MIN Read|Write|… N` lines (the `Total` line has no device)."""
    devices: dict[str, IoCounters] = {}
    for text, kind in ((service_bytes, "bytes"), (serviced, "ops")):
        for line in text.splitlines():
            parts = line.split()
            if len(parts) != 3 or ":" not in parts[0]:
                continue
            device, op, value = parts[0], parts[1], int(parts[2])
            counters = devices.setdefault(device, IoCounters())
            if op == "Read":
                setattr(counters, f"read_{kind}", value)
            elif op == "Write":
                setattr(counters, f"write_{kind}", value)
    return devices


def parse_v2_io(text: str) -> dict[str, IoCounters]:
    """Parse v2 `MAJ:MIN rbytes=… wbytes=… rios=… wios=…` lines."""
    devices: dict[str, IoCounters] = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts or ":" not in parts[0]:
            continue
        values = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
        devices[parts[0]] = IoCounters(
            read_bytes=int(values.get("rbytes", 0)),
            write_bytes=int(values.get("wbytes", 0)),
            read_ops=int(values.get("rios", 0)),
            write_ops=int(values.get("wios", 0)),
        )
    return devices
