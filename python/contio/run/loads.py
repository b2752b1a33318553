"""Load phases shared by run cells, as in YCSB: load once, run many.

One load serves the consecutive cells of a load group (same backend, runtime,
containers and data set; `contio.experiment.matrix` puts them next to each other). Whether a
repetition may run on the data already loaded depends on the spec's `load.reuse`:

- `auto`: yes while no writing run has changed the data since it was loaded, so
  read-only cells share one load and every repetition of a writing cell starts from
  freshly loaded data;
- `always`: yes whenever the data set matches (writes accumulate, as when a
  benchmark is run again on a loaded database);
- `never`: a fresh load before every repetition.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import Any

from contio.cells.executor import DataSession
from contio.containers.data_location import DataLocation, HostPath
from contio.experiment.matrix import Cell, Member


@dataclass
class LoadedData:
    """The data of the last load: where it lives, and what the runtime holds on it."""

    key: tuple[Any, ...]
    """The load group key (`Cell.load_key`) it was loaded for."""
    backends: list[str]
    """The backend level of each location (a mix member may have its own)."""
    locations: list[DataLocation]
    """One per container, in container order: a host directory or a Docker volume."""
    fresh: bool = True
    """No writing run has touched it since the load."""
    members: list[Member] = field(default_factory=list)
    """What loaded each location (the kinds' cleanup runs on release)."""
    runtime: str = "process"
    session: DataSession | None = None
    """The runtime's hold on the data (database servers on it), kept until the data is
    released."""
    disk: str | None = None
    """The kernel name of the disk holding the data, when one does (for the metrics)."""


def needs_load(policy: str, loaded: LoadedData | None, cell: Cell) -> bool:
    """Whether the next repetition of `cell` needs a load first."""
    if loaded is None or loaded.key != cell.load_key():
        return True
    if policy == "always":
        return False
    if policy == "never":
        return True
    return not loaded.fresh


def member_backends(cell: Cell) -> list[str]:
    """The backend level holding each container's data: its mix member's own, else the
    cell's."""
    return [m.backend or cell.level["backend"] for m in cell.members]


def data_bytes(location: DataLocation) -> float | None:
    """Bytes a container's data occupies on its backend (allocated blocks of every file
    under its directory: sparse files count what they hold); None for a Docker volume,
    whose files the runtime keeps."""
    if not isinstance(location, HostPath):
        return None
    total = 0
    for root, _, names in os.walk(location.path):
        for name in names:
            with contextlib.suppress(OSError):  # a file removed while walking
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return float(total)
