"""Processes of this host: when one started, whether it still runs, who owns a resource.

A pid alone can be reused after a crash; the pair (pid, start time) cannot, so contio
records both for every process that owns something (a container, a backend's directory,
a daemon) and compares both before it treats the owner as gone. The start time is the
kernel's: clock ticks since boot, field 22 of /proc/PID/stat (proc(5)), kept as the
kernel gives it so records written by earlier versions still compare equal.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

HOST = "contio.machine"
PID = "contio.pid"
PID_START = "contio.pid-start"
"""The keys under which an `Owner` is recorded (as Docker labels and in owner records)."""


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (field 3 on); None without it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    return stat.rsplit(")", 1)[1].split()


def process_state(pid: int) -> str | None:
    """The process's state letter (`R`, `S`, `Z` …), None when there is no such process."""
    fields = _stat_fields(pid)
    return fields[0] if fields else None


def start_ticks(pid: int) -> int | None:
    """When `pid` started (clock ticks since boot); None once it has exited, zombies too."""
    fields = _stat_fields(pid)
    if not fields or fields[0] == "Z":
        return None
    return int(fields[19])  # field 22 of proc(5), counted after the command name


@dataclass(frozen=True)
class Owner:
    """The process that created a resource."""

    host: str
    pid: int
    start: str

    @classmethod
    def current(cls) -> Owner:
        """The calling process."""
        pid = os.getpid()
        started = start_ticks(pid)
        return cls(
            host=socket.gethostname(), pid=pid, start="" if started is None else str(started)
        )

    @classmethod
    def from_labels(cls, labels: dict[str, str]) -> Owner | None:
        """The owner recorded in `labels`, or None when they carry no (valid) owner."""
        try:
            return cls(host=labels[HOST], pid=int(labels[PID]), start=labels.get(PID_START, ""))
        except (KeyError, ValueError):
            return None

    def labels(self) -> dict[str, str]:
        """The owner as labels."""
        return {HOST: self.host, PID: str(self.pid), PID_START: self.start}

    def is_alive(self) -> bool:
        """Whether this owner still runs. Only answerable on the same host: others count as alive."""
        if self.host != socket.gethostname():
            return True
        started = start_ticks(self.pid)
        if started is None:
            return False
        return not self.start or str(started) == self.start
