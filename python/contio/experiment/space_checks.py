"""Whether the files a cell's load lays out fit its backend: refused by `plan` and `run`
before anything is made.

A fio job's `size` (times `numjobs`) and sysbench's `file-total-size` are written in
full by each container's load phase, into a data directory of its own on the cell's
backend. When they add up to more than the backend can hold — a loop device's
`loop_size`, a real device's size, the free space of the folder a `local-dir` or
`path` backend writes in — the load fails after the backend was provisioned (a
filled-up disk, for a folder the user's own), with fio's or sysbench's "No space left
on device". Backends whose room is not known before they are made (gluster, nfs, a
Docker volume) are not checked here.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from contio.backends import registry
from contio.errors import SpecError
from contio.experiment.matrix import Cell
from contio.experiment.spec import ExperimentSpec
from contio.host import block_device
from contio.host.filesystem import parse_size
from contio.workload.file_kinds import FILE_KINDS, laid_out_bytes

Room = tuple[int, str]
"""Bytes a backend can hold, and what says so (`loop_size 64MiB`)."""


def _free(place: Path) -> Room | None:
    try:
        return shutil.disk_usage(place).free, f"{place} has that much free"
    except OSError:
        return None  # a missing place is refused by the backend's own checks


def _device(device: str) -> Room | None:
    try:
        size = block_device.describe(device)["size_bytes"]
    except Exception:  # noqa: BLE001 - any device it cannot size is checked elsewhere
        return None
    return (int(size), f"{device} holds that much") if size else None


def _sized(text: str, option: str) -> Room | None:
    try:
        return parse_size(text), f"{option} is {text}"
    except ValueError:
        return None


def room_of(definition: dict[str, Any]) -> Room | None:
    """What a backend definition can hold, None when that is not known before it is made."""
    kind = str(definition.get("type", "local-dir"))
    options = registry.parsed_options(definition)
    if options is None:
        return None
    fields = options.model_dump()
    if kind == "local-dir":
        return _free(fields["path"] or Path(tempfile.gettempdir()))
    if kind == "path":
        return _free(fields["path"])
    if kind == "local" and fields["mode"] == "directory" and fields["path"] is not None:
        return _free(fields["path"])
    if kind == "local" and fields["mode"] == "device":
        if fields["device"] == "loop":
            return _sized(fields["loop_size"], "loop_size")
        return _device(str(fields["device"])) if fields["device"] else None
    if kind == "striped" and not fields["devices"]:
        each = _sized(fields["loop_size"], "loop_size")
        count = fields["loop_count"]
        return (
            None
            if each is None
            else (each[0] * count, f"{count} × loop_size {fields['loop_size']}")
        )
    if kind == "striped":
        sizes = [_device(d) for d in fields["devices"]]
        if any(s is None for s in sizes):
            return None
        return sum(s[0] for s in sizes if s), f"{' + '.join(fields['devices'])} hold that much"
    return None


def _mib(count: int) -> str:
    return f"{count / 2**20:,.0f} MiB" if count >= 2**20 else f"{count:,} bytes"


def space_problems(spec: ExperimentSpec, cells: list[Cell]) -> list[SpecError]:
    """Each backend level whose cells lay out more than it holds, once, with the numbers
    (the largest cell's)."""
    found: dict[str, SpecError] = {}
    rooms: dict[str, Room | None] = {}
    for cell in cells:
        name = cell.level["backend"]
        if name in found or any(m.backend for m in cell.members):
            continue  # a mix member on a backend of its own: not summed with the cell's
        laid = sum(
            laid_out_bytes(m.kind, m.workload, dict(m.properties))
            for m in cell.members
            if m.kind in FILE_KINDS
        )
        if not laid:
            continue
        if name not in rooms:
            rooms[name] = room_of(spec.backend_definitions()[name])
        room = rooms[name]
        if room is None or laid <= room[0]:
            continue
        prefix = "backend" if not spec.backends else f"backends.{name}"
        containers = len(cell.members)
        each = "" if containers == 1 else f" ({containers} containers, each its own files)"
        found[name] = SpecError(
            prefix,
            f"cell {cell.index}'s load lays out {_mib(laid)} of files{each}, more than "
            f"backend {name!r} can hold: {_mib(room[0])} ({room[1]}); make the files "
            "smaller (fio `size`, sysbench `file-total-size`) or the backend larger",
        )
    return list(found.values())
