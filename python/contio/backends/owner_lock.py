"""The lock a live backend holds on its workdir, so `contio cleanup` can tell a killed
run's leftovers from a run still going.

An exclusive `flock` on `<workdir>/owner.lock`, held from prepare to teardown. The
kernel drops it when the process dies however it dies (SIGKILL, OOM killer), so a lock
that can be taken means the owner is gone. A pid file could not say that: pids are
reused.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

OWNER_LOCK = "owner.lock"


class OwnerLock:
    """The exclusive lock a live backend holds on its workdir (see the module docstring)."""

    def __init__(self, workdir: Path):
        self.path = workdir / OWNER_LOCK
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (the workdir must exist); a second acquire is a no-op."""
        if self._fd is None:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._fd = fd

    def release(self) -> None:
        """Drop the lock and remove the lock file."""
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None


def owner_alive(workdir: Path) -> bool:
    """Whether a live process holds `workdir`'s owner lock."""
    path = workdir / OWNER_LOCK
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing also drops the lock if we took it
    return False
