"""The record contio writes into a directory's owner lock file, and the check that a
directory carries one made for it.

A name such as `contio-x` says nothing: anyone may make a directory (or a symbolic link)
of that name in the world-writable temp directory. So `contio cleanup` removes only a
real directory (never a symbolic link) whose `owner.lock` holds this record, written
when contio made the directory: a magic line, the kind of directory, the host, the
owning process (pid and start time), the owner's uid, and the directory's own path,
device and inode. A record copied into another directory names the wrong inode; a
planted symbolic link is refused before any record is read.
"""

from __future__ import annotations

import os
import socket
import stat
from dataclasses import dataclass
from pathlib import Path

from contio.host.process import Owner

OWNER_LOCK = "owner.lock"
MAGIC = "contio owner record v1"
KINDS = ("backend", "local-dir", "scratch", "qos-agent", "test-session")
"""What a directory is: a backend's workdir under the state directory, a local-dir root,
a scratch directory, a middleware agent's workdir, a test session's state directory."""
MAX_RECORD_BYTES = 4096

OPEN_DIR_NOFOLLOW = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OPEN_FILE_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class OwnerRecord:
    """Who made a directory, and which directory (see the module docstring)."""

    kind: str
    owner: Owner
    uid: int
    path: str
    device: int
    inode: int

    @classmethod
    def of_directory(cls, kind: str, directory_fd: int, path: Path) -> OwnerRecord:
        """The record for the directory open as `directory_fd` (at `path`), owned by the
        calling process."""
        if kind not in KINDS:
            raise ValueError(f"unknown owner kind {kind!r}; allowed: {', '.join(KINDS)}")
        found = os.fstat(directory_fd)
        return cls(
            kind, Owner.current(), os.geteuid(), os.path.realpath(path),
            found.st_dev, found.st_ino,
        )  # fmt: skip

    def text(self) -> str:
        """The lock file's content."""
        fields = {
            "kind": self.kind,
            "host": self.owner.host,
            "pid": str(self.owner.pid),
            "pid_start": self.owner.start,
            "uid": str(self.uid),
            "path": self.path,
            "device": str(self.device),
            "inode": str(self.inode),
        }
        return MAGIC + "\n" + "".join(f"{key}={value}\n" for key, value in fields.items())

    @classmethod
    def parse(cls, text: str) -> OwnerRecord | None:
        """The record in a lock file's text; None when it holds none (or a damaged one)."""
        first, _, rest = text.partition("\n")
        if first != MAGIC:
            return None
        fields = dict(line.partition("=")[::2] for line in rest.splitlines())
        try:
            owner = Owner(fields["host"], int(fields["pid"]), fields["pid_start"])
            return cls(
                fields["kind"], owner, int(fields["uid"]), fields["path"],
                int(fields["device"]), int(fields["inode"]),
            )  # fmt: skip
        except (KeyError, ValueError):
            return None


def why_not_owned(directory: Path, kinds: tuple[str, ...]) -> str | None:
    """Why `directory` is not one contio made as one of `kinds` (None: it is).

    Never follows a symbolic link: neither `directory` itself nor its lock file."""
    try:
        found = os.lstat(directory)
    except OSError as exc:
        return f"cannot be examined: {exc.strerror}"
    if stat.S_ISLNK(found.st_mode):
        return "a symbolic link (contio never follows one)"
    if not stat.S_ISDIR(found.st_mode):
        return "not a directory"
    try:
        fd = os.open(directory, OPEN_DIR_NOFOLLOW)
    except OSError as exc:
        return f"cannot be opened: {exc.strerror}"
    try:
        return _record_problem(fd, directory, kinds)
    finally:
        os.close(fd)


def _record_problem(fd: int, directory: Path, kinds: tuple[str, ...]) -> str | None:
    here = os.fstat(fd)
    try:
        lock_fd = os.open(OWNER_LOCK, OPEN_FILE_NOFOLLOW, dir_fd=fd)
    except OSError as exc:
        return f"its {OWNER_LOCK} cannot be read: {exc.strerror}"
    try:
        lock = os.fstat(lock_fd)
        if not stat.S_ISREG(lock.st_mode):
            return f"its {OWNER_LOCK} is not a regular file"
        text = os.read(lock_fd, MAX_RECORD_BYTES).decode("utf-8", errors="replace")
    finally:
        os.close(lock_fd)
    record = OwnerRecord.parse(text)
    if record is None:
        return f"its {OWNER_LOCK} holds no contio owner record"
    if record.kind not in kinds:
        return f"its owner record is of a {record.kind}, not of a {' or '.join(kinds)}"
    if (record.device, record.inode) != (here.st_dev, here.st_ino):
        return "its owner record names another directory (device and inode differ)"
    if record.path != os.path.realpath(directory):
        return f"its owner record names another path ({record.path})"
    if not record.uid == here.st_uid == lock.st_uid:
        return "its owner record, the directory and the lock file have different owners"
    if record.owner.host != socket.gethostname():
        return f"made on host {record.owner.host}, not this one"
    if record.owner.is_alive():
        return f"its owner (pid {record.owner.pid}) still runs"
    return None
