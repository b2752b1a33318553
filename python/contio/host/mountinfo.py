"""Which mount holds a path, read from /proc/self/mountinfo (file system type, source, options)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")


@dataclass(frozen=True)
class MountEntry:
    """One line of mountinfo: where, what file system, from which source, with which options."""

    mount_point: str
    fstype: str
    source: str
    options: str
    super_options: str
    device: str  # major:minor

    def as_dict(self) -> dict[str, str]:
        """Plain fields for result files."""
        return {
            "mount_point": self.mount_point,
            "fstype": self.fstype,
            "source": self.source,
            "options": self.options,
            "super_options": self.super_options,
            "device": self.device,
        }


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash as three-digit octal escapes.
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def parse(text: str) -> list[MountEntry]:
    """Every mount in a mountinfo text, in kernel order (later lines stack on earlier ones)."""
    entries = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        if not sep:
            continue
        fields, tail = left.split(), right.split()
        if len(fields) < 6 or len(tail) < 3:
            continue
        entries.append(
            MountEntry(
                mount_point=_unescape(fields[4]),
                options=fields[5],
                device=fields[2],
                fstype=tail[0],
                source=_unescape(tail[1]),
                super_options=tail[2],
            )
        )
    return entries


def mounts(text: str | None = None) -> list[MountEntry]:
    """The current process's mounts."""
    return parse(MOUNTINFO.read_text(encoding="utf-8") if text is None else text)


def is_mount_point(path: Path | str, text: str | None = None) -> bool:
    """Whether something is mounted exactly at `path`."""
    wanted = os.path.realpath(path)
    return any(e.mount_point == wanted for e in mounts(text))


def mount_of(path: Path | str, text: str | None = None) -> MountEntry | None:
    """The mount that holds `path` (the last, longest matching mount point)."""
    resolved = Path(os.path.realpath(path))
    best: MountEntry | None = None
    for entry in mounts(text):
        point = Path(entry.mount_point)
        inside = resolved == point or point in resolved.parents
        if inside and (best is None or len(entry.mount_point) >= len(best.mount_point)):
            best = entry
    return best
