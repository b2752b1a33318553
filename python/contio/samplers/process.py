"""One local process's resource counters from /proc, for containers of the `process`
runtime (an engine child process, with all its threads): CPU time (`stat` utime +
stime), major page faults (`stat` majflt), resident memory (`status` VmRSS) and the
storage bytes it caused (`io` read_bytes / write_bytes). Read as a `CgroupReading` so the sampler treats processes
and Docker containers alike; there are no per-device block I/O counters.
"""

from __future__ import annotations

import os
from pathlib import Path

from contio.samplers.cgroup import CgroupReading, ContainerGone

PROC = Path("/proc")
_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


class ProcessCounters:
    """Reads process `pid`'s counters; `ContainerGone` once it has exited."""

    def __init__(self, pid: int, proc: Path = PROC):
        self.pid = pid
        self._dir = proc / str(pid)

    def _text(self, name: str) -> str:
        try:
            return (self._dir / name).read_text()
        except (FileNotFoundError, ProcessLookupError) as exc:
            raise ContainerGone(f"process {self.pid} exited") from exc

    def read(self) -> CgroupReading:
        stat = self._text("stat")
        # The command name (field 2) may hold spaces: the fields after the last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] == "Z":
            raise ContainerGone(f"process {self.pid} exited")
        majflt, utime, stime = int(fields[9]), int(fields[11]), int(fields[12])
        rss_kib = 0
        for line in self._text("status").splitlines():
            if line.startswith("VmRSS:"):
                rss_kib = int(line.split()[1])
        io = {}
        try:
            for line in self._text("io").splitlines():
                key, _, value = line.partition(":")
                io[key] = int(value)
        except PermissionError:
            pass  # another user's process: no I/O counters
        return CgroupReading(
            cpu_ns=(utime + stime) * 1_000_000_000 // _TICKS_PER_SECOND,
            memory_bytes=rss_kib * 1024,
            major_faults=majflt,
            task_read_bytes=io.get("read_bytes", 0),
            task_write_bytes=io.get("write_bytes", 0),
        )
