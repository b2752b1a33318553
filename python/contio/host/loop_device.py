"""Loop devices over sparse files: the stand-in disks of tests and demos.

`attach` makes the sparse file, attaches it with `losetup --find --show` and records
both in the caller's undo journal, so teardown detaches exactly the devices it made.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from contio.errors import BackendError
from contio.host import command
from contio.host.undo_journal import Entry, UndoJournal


def attach(image: Path, size_bytes: int, journal: UndoJournal, *, direct_io: bool = False) -> str:
    """A new loop device over a new sparse file `image` of `size_bytes`; returns /dev/loopN.

    `direct_io`: the loop driver accesses the file with O_DIRECT (`losetup --direct-io=on`).
    """
    make_image(image, size_bytes, journal)
    return attach_file(image, journal, direct_io=direct_io)


def make_image(image: Path, size_bytes: int, journal: UndoJournal) -> None:
    """A new sparse file `image` of `size_bytes`, recorded in `journal`."""
    command.require_program("losetup", "mount")
    if image.exists():
        raise BackendError(f"loop image {image} already exists; refusing to reuse it")
    image.parent.mkdir(parents=True, exist_ok=True)
    with open(image, "xb") as fh:
        fh.truncate(size_bytes)  # sparse: blocks are allocated only when written
    journal.record("file", path=str(image))


def attach_file(path: Path, journal: UndoJournal, *, direct_io: bool = False) -> str:
    """A new loop device over the existing file `path` (recorded in `journal`)."""
    command.require_program("losetup", "mount")
    flags = ["--direct-io=on"] if direct_io else []
    device = command.run(["losetup", "--find", "--show", *flags, str(path)]).stdout.strip()
    if not device.startswith("/dev/loop"):
        raise BackendError(f"losetup returned an unexpected device name {device!r}")
    journal.record("loop", device=device, backing_file=str(path))
    return device


def backing_file(device: str) -> str | None:
    """The file behind a loop device, or None when it is not attached."""
    proc = command.run(["losetup", "--list", "--json", "--output", "NAME,BACK-FILE"], check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    for row in json.loads(proc.stdout).get("loopdevices", []):
        if row.get("name") == device:
            back = row.get("back-file") or ""
            return back.removesuffix(" (deleted)")
    return None


def detach(device: str, expected_backing_file: str) -> None:
    """Detach `device` if it still serves `expected_backing_file` (never someone else's loop)."""
    current = backing_file(device)
    if current is None:
        return
    if os.path.realpath(current) != os.path.realpath(expected_backing_file):
        return  # the number was reused by another attachment: not ours any more
    command.run(["losetup", "--detach", device])


def attached_to(directory: Path) -> list[str]:
    """Loop devices whose backing file lies under `directory` (for leak checks)."""
    proc = command.run(["losetup", "--list", "--json", "--output", "NAME,BACK-FILE"], check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        return []
    root = os.path.realpath(directory)
    found = []
    for row in json.loads(proc.stdout).get("loopdevices", []):
        back = (row.get("back-file") or "").removesuffix(" (deleted)")
        if back.startswith(root + os.sep):
            found.append(row["name"])
    return found


def undo_loop(entry: Entry) -> None:
    """Journal undo: detach the loop device an entry of `attach` names."""
    detach(entry["device"], entry["backing_file"])
