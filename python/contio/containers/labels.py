"""The labels contio puts on every container, network and volume it creates.

The experiment label lets teardown find everything one experiment made. The owner
labels (host, pid and the process's start time) let a later run tell whether the
process that made a resource is still alive: a pid alone can be reused after a
crash, the pair (pid, start time) cannot.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

EXPERIMENT = "contio.experiment"
ROLE = "contio.role"
HOST = "contio.machine"
PID = "contio.pid"
PID_START = "contio.pid-start"
RECIPE_HASH = "contio.recipe-hash"
RECIPE_NAME = "contio.recipe"


def process_start_ticks(pid: int) -> str | None:
    """The start time of `pid` in clock ticks since boot (field 22 of /proc/PID/stat).

    None when the process does not exist.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[19]


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
        return cls(host=socket.gethostname(), pid=pid, start=process_start_ticks(pid) or "")

    @classmethod
    def from_labels(cls, labels: dict[str, str]) -> Owner | None:
        """The owner recorded in `labels`, or None when they carry no (valid) owner."""
        try:
            return cls(host=labels[HOST], pid=int(labels[PID]), start=labels.get(PID_START, ""))
        except (KeyError, ValueError):
            return None

    def labels(self) -> dict[str, str]:
        """The owner as Docker labels."""
        return {HOST: self.host, PID: str(self.pid), PID_START: self.start}

    def is_alive(self) -> bool:
        """Whether this owner still runs. Only answerable on the same host: others count as alive."""
        if self.host != socket.gethostname():
            return True
        start = process_start_ticks(self.pid)
        if start is None:
            return False
        return not self.start or start == self.start


def resource_labels(experiment: str, role: str, owner: Owner) -> dict[str, str]:
    """Every label a container, network or volume of `experiment` carries."""
    return {EXPERIMENT: experiment, ROLE: role, **owner.labels()}
