"""The block device (major:minor) that block I/O controls apply to, and its I/O scheduler.

cgroup controls name a whole disk by major:minor. A path can be a device node
(/dev/loop3), or any file or directory on a mounted file system: then the device is
the one the mount's source names (btrfs and overlay report anonymous device numbers
in stat, so the mount table is the authority). A partition resolves to its disk,
because the throttles and the scheduler belong to the disk's request queue.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from contio.errors import QosError
from contio.host import mountinfo

SYS_DEV_BLOCK = Path("/sys/dev/block")
SYS_FS_BTRFS = Path("/sys/fs/btrfs")


@dataclass(frozen=True)
class BlockDevice:
    """A whole disk by number and kernel name (e.g. 7:6, loop6)."""

    major: int
    minor: int
    name: str

    @property
    def number(self) -> str:
        """ "major:minor", as cgroup control files write it."""
        return f"{self.major}:{self.minor}"

    @property
    def scheduler_file(self) -> Path:
        return SYS_DEV_BLOCK / self.number / "queue" / "scheduler"


def _sys_dir(major: int, minor: int) -> Path:
    path = SYS_DEV_BLOCK / f"{major}:{minor}"
    if not path.exists():
        raise QosError(f"device {major}:{minor} is not a block device known to /sys/dev/block")
    return path


def _whole_disk(major: int, minor: int) -> BlockDevice:
    sys_dir = _sys_dir(major, minor).resolve()
    if (sys_dir / "partition").exists():
        sys_dir = sys_dir.parent  # /sys/block/sda/sda1 → /sys/block/sda
        major, minor = (int(n) for n in (sys_dir / "dev").read_text().split(":"))
    return BlockDevice(major, minor, sys_dir.name)


def _device_number(node: str) -> tuple[int, int]:
    info = os.stat(node)
    if not stat.S_ISBLK(info.st_mode):
        raise QosError(f"{node} is not a block device")
    return os.major(info.st_rdev), os.minor(info.st_rdev)


def resolve(path: str | Path) -> BlockDevice:
    """The whole disk behind a device node, or behind the file system holding `path`."""
    path = Path(path)
    if not path.exists():
        raise QosError(f"{path} does not exist; give a device node or a path on a mounted disk")
    if path.is_block_device():
        return _whole_disk(*_device_number(str(path)))
    mount = mountinfo.mount_of(path)
    if mount is None:
        raise QosError(f"no mount holds {path}")
    if mount.source.startswith("/dev/") and Path(mount.source).is_block_device():
        return _whole_disk(*_device_number(mount.source))
    major, minor = (int(n) for n in mount.device.split(":"))
    if major != 0 and (SYS_DEV_BLOCK / mount.device).exists():
        return _whole_disk(major, minor)
    raise QosError(
        f"{path} is on {mount.fstype} ({mount.source} at {mount.mount_point}), which is not a "
        "local block device; block I/O controls need a disk (give the device node instead)"
    )


def file_system_disks(path: str | Path) -> list[BlockDevice]:
    """Every whole disk the file system holding `path` spans: all of a btrfs file
    system's devices (a striped volume over three loop devices: three disks), else the
    one `resolve` gives. The mount table names only the first device of a btrfs file
    system over several; the others are listed in /sys/fs/btrfs/<fsid>/devices."""
    first = resolve(path)
    for members in sorted(SYS_FS_BTRFS.glob("*/devices")):
        disks = [_member_disk(entry) for entry in sorted(members.iterdir())]
        found = [d for d in disks if d is not None]
        if any(d.number == first.number for d in found):
            return sorted(set(found), key=lambda d: (d.major, d.minor))
    return [first]


def _member_disk(entry: Path) -> BlockDevice | None:
    """The whole disk of one /sys/fs/btrfs/<fsid>/devices entry (a link to the block
    device's sysfs directory); None for one gone meanwhile."""
    try:
        major, minor = (int(n) for n in (entry / "dev").read_text().split(":"))
        return _whole_disk(major, minor)
    except (OSError, ValueError, QosError):
        return None


def scheduler(device: BlockDevice) -> str:
    """The active I/O scheduler ("bfq", "mq-deadline", "none" …)."""
    text = device.scheduler_file.read_text()
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return text.strip()


def available_schedulers(device: BlockDevice) -> list[str]:
    return [w.strip("[]") for w in device.scheduler_file.read_text().split()]


def set_scheduler(device: BlockDevice, name: str) -> None:
    """Select an I/O scheduler on the device (root only)."""
    if name not in available_schedulers(device):
        raise QosError(
            f"scheduler {name!r} is not available on {device.name}; available: "
            f"{', '.join(available_schedulers(device))} (for bfq: modprobe bfq)"
        )
    try:
        device.scheduler_file.write_text(name)
    except OSError as exc:
        raise QosError(f"cannot select {name} on {device.name}: {exc.strerror}") from exc


def _low_latency_file(device: BlockDevice) -> Path:
    return device.scheduler_file.parent / "iosched" / "low_latency"


def bfq_low_latency(device: BlockDevice) -> bool | None:
    """Whether BFQ's low-latency heuristics are on for the device (None: not BFQ)."""
    try:
        return _low_latency_file(device).read_text().strip() != "0"
    except OSError:
        return None


def set_bfq_low_latency(device: BlockDevice, on: bool) -> None:
    """Turn BFQ's low-latency heuristics on or off for the device (root only)."""
    try:
        _low_latency_file(device).write_text("1" if on else "0")
    except OSError as exc:
        raise QosError(f"cannot set BFQ low_latency on {device.name}: {exc.strerror}") from exc
