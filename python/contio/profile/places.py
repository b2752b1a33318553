"""The places `contio advise` puts members on: disks of this host (by name), backend
definitions (`--backends`, as a spec's `backends:`), or disks of other hosts
(`HOST:DISK`). What contio can tell of a place before anything runs: the I/O scheduler
its device uses (which sharing law the model applies), how many bytes it holds (which
members fit), and whether two places are one disk.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml

from contio.errors import QosError, UsageError
from contio.host.filesystem import parse_size
from contio.profile.interference import FAIR_SCHEDULERS
from contio.qos.device import resolve
from contio.yaml_input import read_yaml

Definitions = dict[str, dict[str, Any]]
"""Place → backend definition."""
DIRECTORY_TYPES = ("local-dir", "path", "local")
"""Backend types whose `path` is a directory on a disk of this host."""


def read_places(path: Path) -> Definitions:
    """`--backends`: place → backend definition; `UsageError` naming what is wrong."""
    try:
        document = read_yaml(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--backends: cannot read {str(path)!r}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"--backends: {path} is not valid YAML: {exc}") from None
    if not isinstance(document, dict) or not document:
        raise UsageError(f"--backends: {path} must map each place to a backend definition")
    for place, definition in document.items():
        if not isinstance(definition, dict) or "type" not in definition:
            raise UsageError(
                f"--backends: {place}: a backend definition with a `type`, "
                "e.g. {type: local, mode: device, device: loop, format: xfs}"
            )  # fmt: skip
    base = path.resolve().parent
    return {str(p): _anchored(d, base) for p, d in document.items()}


def _anchored(definition: dict[str, Any], base: Path) -> dict[str, Any]:
    """Relative `path`s are relative to the file, as in a spec."""
    path = definition.get("path")
    if isinstance(path, str) and not Path(path).is_absolute():
        return {**definition, "path": str(base / path)}
    return dict(definition)


SHARING_SAID = {
    "fifo": "the devices serve requests in arrival order",
    "fair": "the devices give each member time slices",
}


def places_sharing(places: list[str], definitions: Definitions | None) -> str:
    """`fair` when every place whose scheduler can be read here uses a time-slicing one
    (bfq), else `fifo` (also when none can be read: Linux's default schedulers are)."""
    found = [s for p in places if (s := _scheduler(p, (definitions or {}).get(p))) is not None]
    return "fair" if found and all(s in FAIR_SCHEDULERS for s in found) else "fifo"


def _scheduler(place: str, definition: dict[str, Any] | None) -> str | None:
    """The I/O scheduler in force on a place's disk (None: cannot tell before it exists)."""
    disk = _disk_of(place, definition)
    if disk is None:
        return None
    try:
        text = (Path("/sys/block") / disk / "queue" / "scheduler").read_text()
    except OSError:
        return None
    chosen = [w.strip("[]") for w in text.split() if w.startswith("[")]
    return chosen[0] if chosen else None


def shared_disks(places: Definitions) -> list[str]:
    """Places whose directories are on one disk: placing members apart there does not
    keep them off one device, and the validation cannot show what advice is worth."""
    by_disk: dict[str, list[str]] = {}
    for place, definition in places.items():
        if definition.get("type") in DIRECTORY_TYPES and isinstance(definition.get("path"), str):
            disk = _disk_of(place, definition)
            if disk is not None:
                by_disk.setdefault(disk, []).append(place)
    return [
        f"places {', '.join(found)} are on one disk ({disk}): members placed apart there "
        "still share its device"
        for disk, found in by_disk.items() if len(found) > 1
    ]  # fmt: skip


def _disk_of(place: str, definition: dict[str, Any] | None) -> str | None:
    """The kernel name of the disk behind a place, when it exists already: a disk named by
    the place, or the disk holding a definition's `path` or `device` (None: a loop device
    made at run time, a disk of another host)."""
    if definition is None:
        return place if (Path("/sys/block") / place).exists() else None
    where = definition.get("path") or definition.get("device")
    if not isinstance(where, str) or where == "loop":
        return None
    try:
        return resolve(where).name
    except QosError:
        return None


def capacity(place: str, definition: dict[str, Any] | None) -> float | None:
    """Bytes a place can hold for members' data, or None when contio cannot tell: a loop
    device's (or a striped volume's) size from its definition, the free space of a
    directory backend's file system, a whole disk's size."""
    if definition is not None:
        size = definition.get("loop_size")
        if size is not None and definition.get("device", "loop") == "loop":
            count = (
                int(definition.get("loop_count", 1)) if definition.get("type") == "striped" else 1
            )
            return float(parse_size(size) * count)
        path = definition.get("path")
        if isinstance(path, str) and definition.get("type") in DIRECTORY_TYPES:
            try:
                return float(shutil.disk_usage(path).free)
            except OSError:
                return None
    disk = _disk_of(place, definition)
    if disk is None or (definition is not None and definition.get("path")):
        return None
    try:
        sectors = int((Path("/sys/block") / disk / "size").read_text())
    except (OSError, ValueError):
        return None
    return float(sectors * 512)


def capacities(places: list[str], definitions: Definitions | None) -> dict[str, float | None]:
    return {p: capacity(p, (definitions or {}).get(p)) for p in places}
