"""Validity checks: did a cell measure what its finding is about?

Each check reads the run rows of a results folder (`contio.results.load`) and says,
per cell, whether the cell measured storage (`passed=True`), measured something else
(`passed=False`, with the reason and the numbers behind it), or that contio cannot
tell from what was sampled (`passed=None`). A verdict on a finding that rests on a
cell with a failed check is downgraded to *not valid here*.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ValidityCheck:
    """The outcome of one check on one cell (or on the whole run when `cell_key` is None)."""

    name: str
    """A stable identifier: `cpu-saturated`, `data-in-cache`, `throttle-fraction`,
    `order-confounded`, ..."""
    cell_key: str | None
    passed: bool | None
    """True: valid; False: the cell measured something else; None: cannot tell."""
    reason: str
    """A sentence a user can act on, with the measured numbers."""
    measured: dict[str, float] = field(default_factory=dict)


def check_cells(frame: Any, meta: dict[str, Any]) -> list[ValidityCheck]:
    """Every check on every cell of a loaded results frame (filled in by the checks)."""
    del frame, meta
    return []
