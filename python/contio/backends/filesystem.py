"""Making and mounting file systems (XFS, ext4) with argv lists, and sizes like '4GiB'."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from contio.backends import command
from contio.backends.undo_journal import UndoJournal

# mkfs program, the Debian package that provides it, and the flag that overwrites an
# existing signature (contio formats only when the spec asks, so forcing is intended).
MKFS: dict[str, tuple[str, str, list[str]]] = {
    "xfs": ("mkfs.xfs", "xfsprogs", ["-f", "-q"]),
    "ext4": ("mkfs.ext4", "e2fsprogs", ["-F", "-q"]),
    "btrfs": ("mkfs.btrfs", "btrfs-progs", ["-f", "-q"]),
}

MIN_BYTES: dict[str, int] = {"xfs": 300 * 1024**2}
"""The smallest device each mkfs formats: mkfs.xfs (xfsprogs 5.19 and later) refuses
anything below 300 MiB with a page of usage text; ext4 has no practical minimum and
btrfs says its own minimum clearly."""

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B?|B)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


def parse_size(text: str | int) -> int:
    """Bytes in '512MiB', '4G', '2 GiB' or a plain integer (binary units: 1K = 1024)."""
    if isinstance(text, int):
        return text
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a size: {text!r} (examples: 512MiB, 4GiB, 1073741824)")
    unit = (match[2] or "").upper()[:1]
    return int(float(match[1]) * _UNITS[unit])


def too_small(fstype: str, size: int) -> str | None:
    """Why a device of `size` bytes cannot hold `fstype`, or None when it can."""
    least = MIN_BYTES.get(fstype, 0)
    if size >= least:
        return None
    return f"{fstype.upper()} needs at least {least // 1024**2}MiB (mkfs.{fstype} refuses less)"


def mkfs_argv(fstype: str, devices: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
    """The mkfs command line for `fstype` over `devices` (btrfs may take several)."""
    program, _, force = MKFS[fstype]
    return [program, *force, *extra, *devices]


def make_filesystem(fstype: str, device: str, extra: Sequence[str] = ()) -> None:
    """Format `device` with `fstype` (destroys what is on it)."""
    program, package, _ = MKFS[fstype]
    command.require_program(program, package)
    command.run(mkfs_argv(fstype, [device], extra))


def mount_argv(source: str, target: Path, fstype: str | None, options: Sequence[str]) -> list[str]:
    """The mount command line; options are joined with commas as mount(8) expects."""
    argv = ["mount"]
    if fstype:
        argv += ["-t", fstype]
    if options:
        argv += ["-o", ",".join(options)]
    return [*argv, source, str(target)]


def mount(
    source: str,
    target: Path,
    journal: UndoJournal,
    fstype: str | None = None,
    options: Sequence[str] = (),
) -> None:
    """Mount `source` on `target` (created if missing) and record both for teardown."""
    if not target.exists():
        target.mkdir(parents=True)
        journal.record("dir", path=str(target))
    # Recorded first: a crash right after mount(8) must still leave the mount undoable
    # (undoing a mount that never happened is a no-op).
    journal.record("mount", target=str(target))
    try:
        command.run(mount_argv(source, target, fstype, options))
    except BaseException:
        journal.undo(journal.entries[-1])
        raise
