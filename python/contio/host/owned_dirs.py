"""Directories contio made under a base directory: found and removed without ever
following a symbolic link, leaving the base, or entering a file system mounted inside.

`scan` looks only at the base's own entries (lstat: a link is never a directory here)
and sorts them into those contio provably made for a run that is gone (their owner
record checks out and their owner lock is free) and those left alone with the reason;
entries with no owner lock at all are not contio's and are not mentioned. `remove_tree`
deletes through directory descriptors, so a link inside is removed as a link.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from contio.errors import BackendError
from contio.host import mountinfo
from contio.host.owner_lock import OWNER_LOCK, owner_alive
from contio.host.owner_record import OPEN_DIR_NOFOLLOW, why_not_owned


@dataclass
class Scan:
    """What `scan` found under one base."""

    dead: list[Path] = field(default_factory=list)
    """Directories contio made whose owner is gone: to remove."""
    left_alone: list[tuple[Path, str]] = field(default_factory=list)
    """Entries that look like contio's but are not provably (with the reason)."""


def scan(base: Path, pattern: str, kinds: tuple[str, ...]) -> Scan:
    """Entries of `base` named like `pattern` (fnmatch), sorted as the module says."""
    found = Scan()
    try:
        names = sorted(e.name for e in os.scandir(base) if fnmatch.fnmatchcase(e.name, pattern))
    except OSError:
        return found  # no such base (nothing made there yet), or not readable
    for name in names:
        path = base / name
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue  # removed meanwhile
        if stat.S_ISLNK(mode):
            found.left_alone.append((path, "a symbolic link (contio never follows one)"))
            continue
        if not stat.S_ISDIR(mode) or not _has_lock_file(path) or owner_alive(path):
            continue
        reason = why_not_owned(path, kinds)
        if reason is None:
            found.dead.append(path)
        else:
            found.left_alone.append((path, reason))
    return found


def _has_lock_file(directory: Path) -> bool:
    try:
        return os.lstat(directory / OWNER_LOCK) is not None
    except OSError:
        return False


def real_subdirectory(root: Path, name: str) -> Path:
    """`root/name` where it is not a symbolic link (it may not exist yet); a
    `BackendError` otherwise, so nothing is made or removed through one."""
    path = root / name
    if path.is_symlink():
        raise BackendError(
            f"{path} is a symbolic link; contio keeps its state only in real directories"
        )
    return path


def remove_tree(path: Path) -> None:
    """Remove the directory `path` and everything in it; `BackendError` when it cannot.

    A symbolic link (at `path` or inside) is removed as a link, never followed; a file
    system mounted anywhere inside is refused before anything is removed."""
    real = Path(os.path.realpath(path))
    inside = [m.mount_point for m in mountinfo.mounts() if Path(m.mount_point).is_relative_to(real)]
    if inside:
        raise BackendError(
            f"{path} has file systems mounted inside ({', '.join(inside)}); unmount them first"
        )
    try:
        # The base itself may be reached through a link the user chose (`--data-dir`).
        parent_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise BackendError(f"cannot remove {path}: {exc.strerror}") from None
    try:
        top = os.lstat(path.name, dir_fd=parent_fd)
        if stat.S_ISLNK(top.st_mode):
            raise BackendError(f"{path} is a symbolic link; contio never removes through one")
        _remove_at(parent_fd, path.name, top.st_dev)
    except FileNotFoundError:
        return
    except (OSError, RecursionError) as exc:
        raise BackendError(f"could not remove {path}: {exc}") from None
    finally:
        os.close(parent_fd)


def _remove_at(parent_fd: int, name: str, device: int) -> None:
    fd = os.open(name, OPEN_DIR_NOFOLLOW, dir_fd=parent_fd)
    try:
        if os.fstat(fd).st_dev != device:
            raise BackendError(f"{name} is another file system; left alone")
        with os.scandir(fd) as entries:
            listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        for child, is_dir in listed:
            if is_dir:
                _remove_at(fd, child, device)
            else:
                os.unlink(child, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent_fd)
