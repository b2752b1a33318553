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
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

OWNER_LOCK = "owner.lock"


class OwnerLock:
    """The exclusive lock a live backend holds on its workdir (see the module docstring)."""

    def __init__(self, workdir: Path):
        self.path = workdir / OWNER_LOCK
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (the workdir must exist); a second acquire is a no-op.

        The file is locked under a temporary name, then renamed: a lock file that can be
        seen is always held, so `contio cleanup` never finds a live owner's lock free.
        The descriptor is close-on-exec: children (engines) never hold it."""
        if self._fd is None:
            fd, locked = tempfile.mkstemp(prefix=".owner-", dir=self.path.parent)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                os.rename(locked, self.path)
            except BaseException:
                os.close(fd)
                Path(locked).unlink(missing_ok=True)
                raise
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


@contextmanager
def owned_temp_dir(prefix: str) -> Iterator[Path]:
    """A temporary directory under the system's temp directory, holding its owner lock
    while in use, so that `contio cleanup` removes it when its process was killed."""
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        lock = OwnerLock(Path(name))
        lock.acquire()
        try:
            yield Path(name)
        finally:
            lock.release()
