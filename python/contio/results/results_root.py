"""Where a run may put its results folder: checked before anything is made.

`contio run --results-dir /proc/sys` used to get as far as making the folder and fail
there (exit 1) after the spec and the engine's checks; a root that cannot hold a
results folder is a usage error (exit 2), refused before anything is provisioned.
"""

from __future__ import annotations

import os
from pathlib import Path

from contio.errors import ResultsRootError

PSEUDO_FILE_SYSTEMS = frozenset(
    {
        "proc", "sysfs", "cgroup", "cgroup2", "devtmpfs", "devpts", "debugfs", "tracefs",
        "securityfs", "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs",
        "efivarfs", "binfmt_misc", "autofs", "rpc_pipefs", "nsfs",
    }
)  # fmt: skip
"""Kernel file systems: their folders are the kernel's interfaces, not storage."""


NAME_MAX = 255
PATH_MAX = 4096


def long_name_problem(path: Path) -> str | None:
    """Why `path` is longer than Linux takes (ENAMETOOLONG: a part over 255 bytes, the
    whole over 4096; a results folder's own name and files add about 60 more), or None."""
    parts = [p for p in path.parts if len(os.fsencode(p)) > NAME_MAX]
    if parts:
        return f"a name in it is {len(os.fsencode(parts[0]))} bytes long; at most {NAME_MAX}"
    if len(os.fsencode(str(path))) > PATH_MAX - 200:
        return f"it is {len(os.fsencode(str(path)))} bytes long; at most {PATH_MAX - 200} here"
    return None


def _existing_ancestor(path: Path) -> Path:
    """`path`, or its nearest ancestor that exists."""
    for place in (path, *path.parents):
        if place.exists():
            return place
    return Path("/")


def _file_system_type(path: Path) -> str | None:
    """The type of the file system holding `path` (from /proc/self/mountinfo)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    best, kind = "", None
    target = str(path)
    for line in lines:
        fields = line.split()
        if "-" not in fields:
            continue
        mount = fields[4].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, fields[fields.index("-") + 1]
    return kind


def check_results_root(root: Path) -> None:
    """Refuse (`ResultsRootError`, exit 2) a results root that cannot hold a results
    folder, before anything is made: a file, a folder that cannot be written, a
    read-only or a kernel file system."""
    too_long = long_name_problem(root.absolute())
    if too_long is not None:
        raise ResultsRootError(root, too_long)
    place = _existing_ancestor(root.absolute())
    if not place.is_dir():
        raise ResultsRootError(root, f"{place} is not a folder")
    kind = _file_system_type(place.resolve())
    if kind in PSEUDO_FILE_SYSTEMS:
        raise ResultsRootError(root, f"{place} is on the kernel's {kind} file system, not storage")
    try:
        read_only = bool(os.statvfs(place).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    if read_only:
        raise ResultsRootError(root, f"{place} is on a read-only file system")
    if not os.access(place, os.W_OK | os.X_OK):
        raise ResultsRootError(root, f"{place} is not writable by this user (uid {os.geteuid()})")
