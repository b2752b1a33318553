"""Files contio writes where a user names them (a report, an export, a profile) or in a
results folder (summary.csv, findings.json): replaced whole, and only when what is
there is a regular file.

A file is written beside its place under a fresh name (created exclusively, so a FIFO
or a link planted there is never opened) and renamed over it. A rename does not look
at what it replaces: `contio report -o /dev/null` run as root would put an HTML file
where the null device was, and a FIFO or a socket a program listens on would vanish
the same way. So a place holding anything but a regular file (or a link to one) is
refused, naming what it is. A missing directory, or a name longer than the file
system takes, is refused before the work of building the file starts; a write that
fails later (no space, `/proc`, permissions) is refused with the operating system's
reason, and leaves no partial file behind.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from contio.errors import OutputFileError

_KINDS = (
    (stat.S_ISDIR, "a directory; name a file"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _stat_reason(exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return "the name is too long (at most 255 bytes a name, 4096 a path)"
    if exc.errno == errno.ELOOP:
        return "it is a symbolic link loop"
    return exc.strerror or str(exc)


def output_problem(path: Path, make_parent: bool = False) -> str | None:
    """Why contio may not write its file at `path` (None: it may). `make_parent`: the
    caller makes a missing directory itself."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent_info = os.stat(parent)
    except FileNotFoundError:
        parent_info = None
        if not make_parent:
            return f"directory {str(parent)!r} does not exist"
    except OSError as exc:
        return _stat_reason(exc)
    if parent_info is not None and not stat.S_ISDIR(parent_info.st_mode):
        return f"{str(parent)!r} is not a directory"
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None  # a new file (or a dangling link, which the rename replaces)
    except OSError as exc:
        return _stat_reason(exc)
    for test, kind in _KINDS:
        if test(mode):
            if kind.startswith("a directory"):
                return f"it is {kind}"
            return f"it is {kind}, not a regular file; contio replaces only regular files"
    return None if stat.S_ISREG(mode) else "it is not a regular file"


def check_output(path: Path, make_parent: bool = False) -> None:
    """Refuse (`OutputFileError`, exit code 2) a place contio may not write its file."""
    problem = output_problem(path, make_parent)
    if problem is not None:
        raise OutputFileError(path, problem)


def _new_partial(path: Path) -> Path:
    """A new, empty file beside `path`, made exclusively (never a planted FIFO or link)."""
    for _ in range(16):
        partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return partial
    raise OutputFileError(path, "no free name for its partial file beside it")


def write_output(path: Path, write: Callable[[Path], object], make_parent: bool = False) -> Path:
    """Call `write(partial)` on a new file beside `path`, then move it into place (what
    `write` returns is ignored)."""
    check_output(path, make_parent)
    if make_parent:
        path.parent.mkdir(parents=True, exist_ok=True)
    partial: Path | None = None
    try:
        partial = _new_partial(path)
        write(partial)
        check_output(path)  # again: something may have been put there meanwhile
        os.replace(partial, path)
    except OSError as exc:
        if partial is not None:
            partial.unlink(missing_ok=True)
        reason = _stat_reason(exc)  # pyarrow's name the partial file: name the file
        raise OutputFileError(path, reason.replace(str(partial), str(path))) from None
    except BaseException:
        if partial is not None:
            partial.unlink(missing_ok=True)
        raise
    return path


def replace_text(path: Path, text: str, make_parent: bool = False) -> Path:
    """Write `text` (UTF-8) as the whole of `path`, as `write_output` does."""
    return write_output(path, lambda p: p.write_text(text, encoding="utf-8"), make_parent)
