"""Writing a report or an export to the path a user named: an error names the file.

A missing directory is refused before the work of building the file starts; a write
that fails later (no space, `/proc`, permissions) is refused the same way, with the
operating system's reason, and leaves no partial file behind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from contio.errors import OutputFileError


def check_output(path: Path) -> None:
    """Refuse `path` when its directory does not exist or it names a directory."""
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise OutputFileError(path, f"directory {str(parent)!r} does not exist")
    if path.is_dir():
        raise OutputFileError(path, "it is a directory; name a file")


def write_output(path: Path, write: Callable[[Path], object]) -> Path:
    """Call `write(partial)` on a file beside `path`, then move it into place (what
    `write` returns is ignored)."""
    check_output(path)
    partial = path.with_name(path.name + ".partial")
    try:
        write(partial)
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        reason = exc.strerror or str(exc)  # pyarrow's name the partial file: name the file
        raise OutputFileError(path, reason.replace(str(partial), str(path))) from None
    return path
