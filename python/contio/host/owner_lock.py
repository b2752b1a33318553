"""The lock a live backend holds on its workdir, so `contio cleanup` can tell a killed
run's leftovers from a run still going.

An exclusive `flock` on `<workdir>/owner.lock`, held from prepare to teardown. The
kernel drops it when the process dies however it dies (SIGKILL, OOM killer), so a lock
that can be taken means the owner is gone. A pid file could not say that: pids are
reused. The lock file holds contio's owner record (`owner_record`), so cleanup can also
tell a directory contio made from one that only looks like it.

Every step goes through a descriptor of the workdir opened without following a
symbolic link: a link planted where the workdir should be is refused, never written
through.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from contio.errors import BackendError
from contio.host.owner_record import (
    OPEN_DIR_NOFOLLOW,
    OPEN_FILE_NOFOLLOW,
    OWNER_LOCK,
    OwnerRecord,
)

__all__ = ["OWNER_LOCK", "OwnerLock", "owned_temp_dir", "owner_alive"]


class OwnerLock:
    """The exclusive lock a live owner holds on its workdir (see the module docstring)."""

    def __init__(self, workdir: Path, kind: str):
        """`kind`: what the workdir is (`owner_record.KINDS`), written in the record."""
        self.path = workdir / OWNER_LOCK
        self.kind = kind
        self._fd: int | None = None
        self._dir_fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (the workdir must exist); a second acquire is a no-op.

        The file is locked and its record written under a temporary name, then renamed:
        a lock file that can be seen is always held and complete, so `contio cleanup`
        never finds a live owner's lock free. The descriptors are close-on-exec:
        children (engines) never hold them."""
        if self._fd is not None:
            return
        workdir = self.path.parent
        try:
            dir_fd = os.open(workdir, OPEN_DIR_NOFOLLOW)
        except OSError as exc:
            raise BackendError(
                f"cannot hold {workdir} (a symbolic link, or not a directory?): {exc.strerror}"
            ) from None
        temporary = f".owner-{secrets.token_hex(8)}"
        try:
            fd = os.open(
                temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o644, dir_fd=dir_fd,
            )  # fmt: skip
        except BaseException:
            os.close(dir_fd)
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, OwnerRecord.of_directory(self.kind, dir_fd, workdir).text().encode())
            os.rename(temporary, OWNER_LOCK, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            os.close(fd)
            _unlink_at(dir_fd, temporary)
            os.close(dir_fd)
            raise
        self._fd, self._dir_fd = fd, dir_fd

    def release(self) -> None:
        """Drop the lock and remove the lock file."""
        if self._fd is None or self._dir_fd is None:
            return
        _unlink_at(self._dir_fd, OWNER_LOCK)
        os.close(self._fd)
        os.close(self._dir_fd)
        self._fd = self._dir_fd = None


def _unlink_at(dir_fd: int, name: str) -> None:
    # Gone already when the workdir was removed with it (a local-dir root's teardown).
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=dir_fd)


def owner_alive(workdir: Path) -> bool:
    """Whether a live process holds `workdir`'s owner lock (links are not followed)."""
    try:
        dir_fd = os.open(workdir, OPEN_DIR_NOFOLLOW)
    except OSError:
        return False
    try:
        fd = os.open(OWNER_LOCK, OPEN_FILE_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return False
    finally:
        os.close(dir_fd)
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
        lock = OwnerLock(Path(name), "scratch")
        lock.acquire()
        try:
            yield Path(name)
        finally:
            lock.release()
