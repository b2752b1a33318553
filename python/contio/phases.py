"""Load phases shared by run cells, as in YCSB: load once, run many.

One load serves the consecutive cells of a load group (same backend, runtime,
containers and data set; `contio.matrix` puts them next to each other). Whether a
repetition may run on the data already loaded depends on the spec's `load.reuse`:

- `auto`: yes while no writing run has changed the data since it was loaded, so
  read-only cells share one load and every repetition of a writing cell starts from
  freshly loaded data;
- `always`: yes whenever the data set matches (writes accumulate, as when a
  benchmark is run again on a loaded database);
- `never`: a fresh load before every repetition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contio.matrix import Cell, Member


@dataclass
class LoadedData:
    """The data directories of the last load."""

    key: tuple[Any, ...]
    """The load group key (`Cell.load_key`) it was loaded for."""
    backend: str
    dirs: list[Path]
    """One per container, in container order."""
    fresh: bool = True
    """No writing run has touched it since the load."""
    members: list[Member] = field(default_factory=list)
    """What loaded each directory (the kinds' cleanup runs on release)."""


def needs_load(policy: str, loaded: LoadedData | None, cell: Cell) -> bool:
    """Whether the next repetition of `cell` needs a load first."""
    if loaded is None or loaded.key != cell.load_key():
        return True
    if policy == "always":
        return False
    if policy == "never":
        return True
    return not loaded.fresh
