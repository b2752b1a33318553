"""Making and mounting file systems (XFS, ext4) with argv lists, and sizes like '4GiB'."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from contio.host import command
from contio.host.undo_journal import UndoJournal

# mkfs program, the Debian package that provides it, the flag that overwrites an existing
# signature (given only when the spec says `erase_existing`: otherwise mkfs.xfs and
# mkfs.btrfs refuse a device that gained one since contio looked), and how to set the
# file system's UUID (contio chooses it, to recognise its own file system at teardown).
MKFS: dict[str, tuple[str, str, list[str], list[str]]] = {
    "xfs": ("mkfs.xfs", "xfsprogs", ["-f"], ["-m", "uuid={uuid}"]),
    "ext4": ("mkfs.ext4", "e2fsprogs", ["-F"], ["-U", "{uuid}"]),
    "btrfs": ("mkfs.btrfs", "btrfs-progs", ["-f"], ["-U", "{uuid}"]),
}

MIN_BYTES: dict[str, int] = {"xfs": 300 * 1024**2, "ext4": 128 * 1024, "btrfs": 125 * 1024**2}
"""The smallest device each mkfs formats (measured with xfsprogs 6.1, e2fsprogs 1.47,
btrfs-progs 6.2): mkfs.xfs refuses anything below 300 MiB with a page of usage text,
mkfs.ext4 below 128 KiB ("Filesystem too small for a journal"), mkfs.btrfs RAID0 a
member below 125 MiB ("minimum size for each btrfs device is 131072000")."""

MOUNTABLE = frozenset(
    {"xfs", "ext2", "ext3", "ext4", "btrfs", "vfat", "exfat", "ntfs", "f2fs", "jfs", "udf"}
)
"""Signature types that are a file system `mount` can mount as it is."""

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
    shown = f"{least // 1024**2}MiB" if least >= 1024**2 else f"{least // 1024}KiB"
    return f"{fstype.upper()} needs at least {shown} (mkfs.{fstype} refuses less)"


def uuid_option_problem(extra: Sequence[str]) -> str | None:
    """Why `mkfs_options` may not be used: contio sets the UUID itself."""
    if any(option == "-U" or "uuid=" in option for option in extra):
        return "contio sets the file system's UUID itself (to know its own at teardown): remove the UUID option"
    return None


def mkfs_argv(
    fstype: str,
    devices: Sequence[str],
    extra: Sequence[str] = (),
    *,
    uuid: str | None = None,
    force: bool = False,
) -> list[str]:
    """The mkfs command line for `fstype` over `devices` (btrfs may take several), making
    a file system with `uuid` (None: mkfs draws one); `force` overwrites signatures."""
    program, _, forced, uuid_flags = MKFS[fstype]
    with_uuid = [flag.format(uuid=uuid) for flag in uuid_flags] if uuid else []
    return [program, *(forced if force else []), "-q", *extra, *with_uuid, *devices]


def make_filesystem(
    fstype: str,
    device: str,
    extra: Sequence[str] = (),
    *,
    uuid: str | None = None,
    force: bool = False,
) -> None:
    """Format `device` with `fstype` (destroys what is on it; see `mkfs_argv`)."""
    program, package, _, _ = MKFS[fstype]
    command.require_program(program, package)
    command.run(mkfs_argv(fstype, [device], extra, uuid=uuid, force=force))


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
