"""What a block device holds and who uses it, read without changing it.

Signatures (file systems, partition tables, RAID and LVM members) come from
`wipefs --no-act --json` (util-linux, which probes with libblkid as mkfs would); users
from the kernel: mounts (/proc/self/mountinfo), holders (device-mapper, md, bcache:
/sys/class/block/X/holders), partitions and swap (/proc/swaps). contio formats a device
only when all of these are empty, or the spec says `erase_existing: true` for the
signatures (never for a device in use).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from contio.errors import BackendError
from contio.host import command, mountinfo

SYS_BLOCK = Path("/sys/class/block")
PROC_SWAPS = Path("/proc/swaps")


@dataclass(frozen=True)
class Signature:
    """One signature libblkid finds on a device."""

    type: str
    offset: str
    uuid: str | None = None
    label: str | None = None

    def text(self) -> str:
        """'an ext4 signature at 0x438 (UUID …)'."""
        named = ", ".join(
            f"{key} {value}" for key, value in (("UUID", self.uuid), ("label", self.label)) if value
        )
        return f"{self.type} at offset {self.offset}" + (f" ({named})" if named else "")


@dataclass(frozen=True)
class DeviceUse:
    """Who uses a device now (empty: no one)."""

    mounts: list[str] = field(default_factory=list)
    holders: list[str] = field(default_factory=list)
    partitions: list[str] = field(default_factory=list)
    swap: bool = False

    def text(self) -> str | None:
        """Why the device is in use, or None when it is not."""
        said = []
        if self.mounts:
            said.append(f"mounted at {', '.join(self.mounts)}")
        if self.holders:
            said.append(f"held by {', '.join(self.holders)} (device-mapper, md or bcache)")
        if self.partitions:
            said.append(f"has partitions {', '.join(self.partitions)}")
        if self.swap:
            said.append("in use as swap")
        return "; ".join(said) or None


def signatures(device: str) -> list[Signature]:
    """Every signature on `device`; `BackendError` when it cannot be read (not root)."""
    command.require_program("wipefs", "util-linux")
    done = command.run(["wipefs", "--no-act", "--json", device], check=False)
    if done.returncode != 0:
        reason = (done.stderr or done.stdout).strip() or f"wipefs exit code {done.returncode}"
        raise BackendError(f"cannot read {device} to see what it holds: {reason}")
    if not done.stdout.strip():
        return []  # older util-linux prints nothing for a device without signatures
    try:
        listed = json.loads(done.stdout).get("signatures", [])
        return [
            Signature(str(s["type"]), str(s["offset"]), s.get("uuid"), s.get("label"))
            for s in listed
        ]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BackendError(f"wipefs said something unexpected about {device}: {exc}") from None


def use_of(device: str) -> DeviceUse:
    """Who uses `device` (and its partitions) now."""
    name = Path(os.path.realpath(device)).name
    sys_dir = SYS_BLOCK / name
    partitions = sorted(p.name for p in _entries(sys_dir) if (p / "partition").exists())
    names = [name, *partitions]
    holders = sorted({h.name for n in names for h in _entries(SYS_BLOCK / n / "holders")})
    numbers = {_read(SYS_BLOCK / n / "dev") for n in names} - {None}
    paths = {f"/dev/{n}" for n in names} | {os.path.realpath(device)}
    mounts = sorted(
        {
            m.mount_point
            for m in mountinfo.mounts()
            if m.device in numbers or os.path.realpath(m.source) in paths
        }
    )
    return DeviceUse(mounts, holders, partitions, _is_swap(paths))


def _entries(directory: Path) -> list[Path]:
    try:
        return list(directory.iterdir())
    except OSError:
        return []


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def _is_swap(paths: set[str]) -> bool:
    text = _read(PROC_SWAPS) or ""
    return any(line.split()[0] in paths for line in text.splitlines()[1:] if line.split())


def wipe_own_signature(device: str, fstype: str, uuid: str) -> None:
    """Erase the `fstype` signature with `uuid` from `device` (the file system contio
    made there) and nothing else: a file system made since, or any other signature,
    is left as it is."""
    try:
        found = signatures(device)
    except BackendError:
        if not os.path.exists(device):
            return  # the device is gone: nothing of contio's is left on it
        raise
    offsets = [s.offset for s in found if s.type == fstype and s.uuid == uuid]
    if offsets:
        argv = ["wipefs", "--quiet"]
        for offset in offsets:
            argv += ["--offset", offset]
        command.run([*argv, device])
