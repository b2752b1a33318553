"""Results: the folder a run writes, its SQLite index, and the per-cell statistics.

`contio.results.load(path)` reads a results folder back, as users call it.
"""

from contio.results.folder import load

__all__ = ["load"]
