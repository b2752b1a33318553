"""Which cgroup hierarchy controls block I/O on this host: v1 `blkio` or v2 `io`.

A host mounts cgroup v1 controllers (`cgroup` with the `blkio` option), the unified
v2 hierarchy (`cgroup2`), or both ("hybrid", as Debian 12 with systemd's legacy
setting and this machine: the v2 hierarchy is mounted but has no `io` controller,
because `blkio` is bound to v1). The I/O controller lives where it is bound, so v1
wins when a `blkio` hierarchy is mounted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from contio.errors import QosError
from contio.host import mountinfo

Version = Literal["v1", "v2"]


@dataclass(frozen=True)
class Cgroup:
    """One cgroup directory of the hierarchy that controls block I/O."""

    version: Version
    path: Path

    @property
    def procs_file(self) -> Path:
        return self.path / "cgroup.procs"

    def pids(self) -> list[int]:
        """The processes in this cgroup (not in its children)."""
        text = self.procs_file.read_text()
        return [int(line) for line in text.split()]


def blkio_v1_root(mount_text: str | None = None) -> Path | None:
    """Where the v1 `blkio` controller is mounted, if it is."""
    for entry in mountinfo.mounts(mount_text):
        if entry.fstype == "cgroup" and "blkio" in entry.super_options.split(","):
            return Path(entry.mount_point)
    return None


def unified_root(mount_text: str | None = None) -> Path | None:
    """Where the v2 hierarchy is mounted, if it has the `io` controller."""
    for entry in mountinfo.mounts(mount_text):
        if entry.fstype == "cgroup2":
            root = Path(entry.mount_point)
            controllers = root / "cgroup.controllers"
            if controllers.exists() and "io" in controllers.read_text().split():
                return root
    return None


def detect(mount_text: str | None = None) -> tuple[Version, Path]:
    """The version and root of the hierarchy that controls block I/O here."""
    if (root := blkio_v1_root(mount_text)) is not None:
        return "v1", root
    if (root := unified_root(mount_text)) is not None:
        return "v2", root
    raise QosError(
        "no cgroup hierarchy with block I/O control is mounted (neither v1 blkio nor v2 io); "
        "mount one, e.g. `mount -t cgroup -o blkio blkio /sys/fs/cgroup/blkio`"
    )
