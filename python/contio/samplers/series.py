"""A thread that samples containers' cgroups and the host every interval (1 s) and
turns the counters into per-second rates, written as JSON lines as they come.

Each line is one sample: `{"t": seconds since start, "source": "host" | container
name, ...}`. Container lines: `cpu_percent` (100 = one core), `memory_bytes`,
`memory_limit_bytes` (None without a limit), `major_faults_per_s`, `io` (per device `major:minor`: read/write bytes/s and ops/s from blkio),
`task_read_bytes_per_s` / `task_write_bytes_per_s` (from /proc/PID/io). Host lines:
`cpu_percent` (of all cores), `disks` (per device: `util_percent` from io_ticks,
read/write bytes/s, ops/s, merged requests/s, mean `queue_depth`), `net` (per interface: rx/tx bytes/s). A container whose
cgroup disappears (it exited) is dropped from later samples and listed in `gone`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from contio.samplers.cgroup import CgroupReading, ContainerCgroup, ContainerGone
from contio.samplers.host import HostReading, read_host


@dataclass
class ContainerTotals:
    """What one container did over the whole sampling (counter differences)."""

    cpu_seconds: float = 0.0
    peak_memory_bytes: int = 0
    read_bytes: int = 0
    write_bytes: int = 0
    read_ops: int = 0
    write_ops: int = 0
    task_read_bytes: int = 0
    task_write_bytes: int = 0
    """Storage bytes its processes caused to be read/written (/proc/PID/io), any device."""
    samples: int = 0


@dataclass
class _Watched:
    cgroup: Counters
    first: CgroupReading
    last: CgroupReading
    totals: ContainerTotals = field(default_factory=ContainerTotals)


def _container_sample(
    name: str, before: CgroupReading, now: CgroupReading, seconds: float
) -> dict[str, Any]:
    io = {}
    for device, c in now.io.items():
        p = before.io.get(device)
        if p is None:
            continue
        io[device] = {
            "read_bytes_per_s": (c.read_bytes - p.read_bytes) / seconds,
            "write_bytes_per_s": (c.write_bytes - p.write_bytes) / seconds,
            "read_ops_per_s": (c.read_ops - p.read_ops) / seconds,
            "write_ops_per_s": (c.write_ops - p.write_ops) / seconds,
        }
    return {
        "source": name,
        "cpu_percent": 100.0 * (now.cpu_ns - before.cpu_ns) / 1e9 / seconds,
        "memory_bytes": now.memory_bytes,
        "memory_limit_bytes": now.memory_limit_bytes,
        "major_faults_per_s": (now.major_faults - before.major_faults) / seconds,
        "io": io,
        "task_read_bytes_per_s": (now.task_read_bytes - before.task_read_bytes) / seconds,
        "task_write_bytes_per_s": (now.task_write_bytes - before.task_write_bytes) / seconds,
    }


def _host_sample(before: HostReading, now: HostReading, seconds: float) -> dict[str, Any]:
    total = now.cpu_total_ticks - before.cpu_total_ticks
    busy = now.cpu_busy_ticks - before.cpu_busy_ticks
    disks = {}
    for name, d in now.disks.items():
        p = before.disks.get(name)
        if p is None:
            continue
        disks[name] = {
            "util_percent": min(100.0, (d.busy_ms - p.busy_ms) / 10.0 / seconds),
            "read_bytes_per_s": (d.read_bytes - p.read_bytes) / seconds,
            "write_bytes_per_s": (d.write_bytes - p.write_bytes) / seconds,
            "read_ops_per_s": (d.reads - p.reads) / seconds,
            "write_ops_per_s": (d.writes - p.writes) / seconds,
            "merges_per_s": (d.read_merges + d.write_merges - p.read_merges - p.write_merges)
            / seconds,
            "queue_depth": (d.queue_ms - p.queue_ms) / 1000.0 / seconds,
        }
    net = {}
    for name, (rx, tx) in now.net.items():
        if name in before.net:
            prx, ptx = before.net[name]
            net[name] = {
                "rx_bytes_per_s": (rx - prx) / seconds,
                "tx_bytes_per_s": (tx - ptx) / seconds,
            }
    return {
        "source": "host",
        "cpu_percent": 100.0 * busy / total if total else 0.0,
        "disks": disks,
        "net": net,
    }


class Counters(Protocol):
    """Something whose cumulative counters can be read: a container's cgroup
    (`ContainerCgroup`) or a local process (`contio.samplers.process.ProcessCounters`)."""

    def read(self) -> CgroupReading: ...


class Sampler:
    """Samples `containers` (name → container id), `readers` (name → counters) and the
    host every `interval` seconds into `path` (JSON lines), on its own thread, between
    `start()` and `stop()`."""

    def __init__(
        self,
        containers: dict[str, str],
        path: Path,
        interval: float = 1.0,
        readers: Mapping[str, Counters] | None = None,
    ):
        self.path = path
        self.interval = interval
        self.gone: list[str] = []
        self.totals: dict[str, ContainerTotals] = {}
        self._containers = containers
        self._readers = dict(readers or {})
        self._watched: dict[str, _Watched] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="contio-sampler", daemon=True)
        self._error: BaseException | None = None

    def start(self) -> None:
        """Take the first reading now and sample on a thread from then on."""
        for name, container_id in self._containers.items():
            self._first_reading(name, partial(ContainerCgroup, container_id))
        for name, counters in self._readers.items():
            self._first_reading(name, partial(_same, counters))
        self._host = read_host()
        self._started = time.monotonic()
        self._thread.start()

    def _first_reading(self, name: str, counters: Callable[[], Counters]) -> None:
        try:
            source = counters()
            reading = source.read()
        except ContainerGone:
            self.gone.append(name)
            return
        self._watched[name] = _Watched(source, reading, reading)
        self.totals[name] = ContainerTotals()

    def stop(self) -> None:
        """Stop sampling (after one last sample); re-raise an error of the thread.

        Safe after a `start()` that an interrupt cut short: there is no thread to join."""
        self._stop.set()
        if self._thread.ident is None:
            return
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _loop(self) -> None:
        try:
            with self.path.open("a", encoding="utf-8") as out:
                last = self._started
                while True:
                    stopping = self._stop.wait(self.interval)
                    now = time.monotonic()
                    seconds = max(now - last, 1e-6)
                    last = now
                    for sample in self._sample(seconds):
                        sample["t"] = round(now - self._started, 3)
                        out.write(json.dumps(sample, sort_keys=True) + "\n")
                    out.flush()
                    if stopping:
                        return
        except Exception as exc:  # noqa: BLE001 - re-raised by stop(), not lost on a thread
            self._error = exc

    def _sample(self, seconds: float) -> list[dict[str, Any]]:
        samples = []
        for name, watched in list(self._watched.items()):
            try:
                now = watched.cgroup.read()
            except ContainerGone:
                self.gone.append(name)
                del self._watched[name]
                continue
            samples.append(_container_sample(name, watched.last, now, seconds))
            watched.last = now
            self._update_totals(self.totals[name], watched.first, now)
        host = read_host()
        samples.append(_host_sample(self._host, host, seconds))
        self._host = host
        return samples

    @staticmethod
    def _update_totals(t: ContainerTotals, first: CgroupReading, now: CgroupReading) -> None:
        t.samples += 1
        t.cpu_seconds = (now.cpu_ns - first.cpu_ns) / 1e9
        t.peak_memory_bytes = max(t.peak_memory_bytes, now.memory_bytes)
        t.task_read_bytes = now.task_read_bytes - first.task_read_bytes
        t.task_write_bytes = now.task_write_bytes - first.task_write_bytes
        base = first.io
        t.read_bytes = sum(
            c.read_bytes - (base[d].read_bytes if d in base else 0) for d, c in now.io.items()
        )
        t.write_bytes = sum(
            c.write_bytes - (base[d].write_bytes if d in base else 0) for d, c in now.io.items()
        )
        t.read_ops = sum(
            c.read_ops - (base[d].read_ops if d in base else 0) for d, c in now.io.items()
        )
        t.write_ops = sum(
            c.write_ops - (base[d].write_ops if d in base else 0) for d, c in now.io.items()
        )


def _same(counters: Counters) -> Counters:
    """A reader that hands out the counters it was given (they read themselves)."""
    return counters
