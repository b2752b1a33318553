"""Whether contio may format a device a spec names, decided before anything is made.

contio changes only what it created. A device it is asked to format must be a block
device that no one uses (no mount, holder, partition or swap) and that holds no
signature (file system, partition table, RAID or LVM member), unless the spec says
`erase_existing: true`, which lifts the last condition only. A device it is asked to
mount as it is must hold a file system. The same checks run at `contio plan`, at
`contio run` before its results folder is made, and again just before mkfs.
"""

from __future__ import annotations

import os
import stat

from contio.errors import BackendError
from contio.host import block_device, device_contents, filesystem

FOR_A_FILE = "for a disk image file, use `device: loop` (contio's own sparse file of `loop_size`)"


def kind_problem(device: str) -> str | None:
    """Why `device` is not an existing block device, or None when it is."""
    if block_device.is_block_device(device):
        return None
    try:
        mode = os.stat(device).st_mode
    except FileNotFoundError:
        return f"{device} does not exist (it must be a block device, e.g. /dev/sdb)"
    except OSError as exc:
        return f"{device} cannot be examined: {exc.strerror}"
    if stat.S_ISREG(mode):
        return f"{device} is a regular file, not a block device; {FOR_A_FILE}"
    if stat.S_ISDIR(mode):
        return f"{device} is a directory, not a block device"
    if stat.S_ISCHR(mode):
        return f"{device} is a character device, not a block device"
    return f"{device} is not a block device"


def format_problem(device: str, erase_existing: bool) -> str | None:
    """Why `device` may not be formatted, or None when it may (see the module docstring)."""
    problem = kind_problem(device)
    if problem:
        return problem
    in_use = device_contents.use_of(device).text()
    if in_use:
        return f"{device} is in use ({in_use}); contio formats only a device no one uses"
    try:
        found = device_contents.signatures(device)
    except BackendError as exc:
        return f"{exc} (contio formats a device only after seeing it holds nothing)"
    if found and not erase_existing:
        held = "; ".join(s.text() for s in found)
        return (
            f"{device} holds data: {held}. contio formats only an empty device: name "
            "another, or set `erase_existing: true` to erase everything on it"
        )
    return None


def size_problem(device: str, fstype: str) -> str | None:
    """Why `device` is too small for `fstype`, or None."""
    size = block_device.describe(device)["size_bytes"]
    small = size is not None and filesystem.too_small(fstype, size)
    return f"{small}; {device} has {size / 1024**2:g}MiB" if small and size is not None else None


def mount_problem(device: str) -> str | None:
    """Why `device` cannot be mounted as it is (no `format`), or None."""
    problem = kind_problem(device)
    if problem:
        return problem
    try:
        found = device_contents.signatures(device)
    except BackendError as exc:
        return str(exc)
    if not any(s.type in filesystem.MOUNTABLE for s in found):
        held = "; ".join(s.text() for s in found) or "no signature"
        return f"{device} holds no file system to mount ({held}); set `format` to make one"
    return None


def erase_note(device: str, fstype: str) -> str:
    """What `contio plan` says formatting `device` will do."""
    try:
        found = device_contents.signatures(device)
    except BackendError:
        found = []
    if not found:
        return f"will format {device} ({fstype}; it holds no signature)"
    held = "; ".join(s.text() for s in found)
    return f"will erase {device}: it holds {held} (erase_existing: true)"
