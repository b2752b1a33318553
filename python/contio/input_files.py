"""Files a user hands contio to read (a spec, a workload or fio job file): what they must be.

Reading a FIFO blocks until someone writes to it, `/dev/zero` never ends, a device holds
no text, and `Path.resolve` raises `RuntimeError` on a symlink loop. Each input is
checked here first, by `stat` (nothing is opened that is not a regular file), and then
opened without blocking and checked again on the open descriptor, so a file swapped
for a FIFO in between cannot hang the read either.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_INPUT_BYTES = 16 << 20
"""The largest input file contio reads: specs and workload files are a few KiB of text."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class InputFileProblem(Exception):
    """Why a file cannot be read as input; the message names the file (callers add what
    the file was meant to be)."""


def _kind_problem(mode: int, size: int, shown: str, expected: str) -> str | None:
    for test, kind in _KINDS:
        if test(mode):
            return f"{shown} is {kind}, not {expected}"
    if not stat.S_ISREG(mode):
        return f"{shown} is not a regular file, not {expected}"
    if size > MAX_INPUT_BYTES:
        return f"{shown} is {size >> 20} MiB, too large for {expected} (at most {MAX_INPUT_BYTES >> 20} MiB)"
    return None


def input_problem(path: Path, expected: str) -> str | None:
    """Why `path` cannot be read as `expected` (`a spec file`), or None."""
    shown = repr(str(path))
    try:
        info = os.stat(path)
    except OSError as exc:
        return _stat_problem(exc, shown)
    return _kind_problem(info.st_mode, info.st_size, shown, expected)


def _stat_problem(exc: OSError, shown: str) -> str:
    if exc.errno == errno.ENOENT:
        return f"{shown} does not exist"
    if exc.errno == errno.ELOOP:
        return f"{shown} is a symbolic link loop (a link that leads back to itself)"
    if exc.errno == errno.ENOTDIR:
        return f"{shown} does not exist (a part of its path is not a directory)"
    return f"cannot read {shown}: {exc.strerror}"


def read_input_text(path: Path, expected: str) -> str:
    """The UTF-8 text of `path`, read as `expected`; `InputFileProblem` when it is not a
    regular file of text (missing, a loop, a FIFO, a device, too large, not UTF-8)."""
    problem = input_problem(path, expected)
    if problem is not None:
        raise InputFileProblem(problem)
    shown = repr(str(path))
    try:
        # O_NONBLOCK: a FIFO put in the file's place since the stat opens at once.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputFileProblem(_stat_problem(exc, shown)) from None
    with os.fdopen(fd, "rb") as source:
        info = os.fstat(fd)
        problem = _kind_problem(info.st_mode, info.st_size, shown, expected)
        if problem is not None:
            raise InputFileProblem(problem)
        data = source.read(MAX_INPUT_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileProblem(
            f"{shown} is not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start}); "
            f"{expected} is a text file"
        ) from None


def resolved(path: Path) -> Path:
    """`path` made absolute with its symlinks followed; a symlink loop stays as given (its
    read says so) instead of raising `RuntimeError`."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):
        return Path(os.path.abspath(path))
