"""The outcome of a validity check, and how a failed one is said: which checks bear on a
conclusion (`bearing_on`), the clause after its numbers (`caveat`), the line `contio
results` prints (`failed_summary`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from contio.experiment.findings import CHECKS


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
    factor: str | None = None
    """The factor a run-wide check is about (`order-confounded`: `io_controls`)."""


def bearing_on(
    checks: Sequence[ValidityCheck], cells: Collection[str], factors: Collection[str]
) -> list[ValidityCheck]:
    """The checks that bear on a conclusion about `cells` comparing `factors`: those of
    the cells, and the run-wide ones (cell order) about a compared factor."""
    found = []
    for check in checks:
        if check.cell_key is not None and check.cell_key not in cells:
            continue
        if check.cell_key is None and check.factor is not None and check.factor not in factors:
            continue
        found.append(check)
    return found


FAILED_MEANS = {
    "cpu-saturated": "measured the CPU, not storage",
    "data-in-cache": "measured the page cache, not the device",
    "memory-thrashing": "measured memory pressure, not storage",
    "throttle-fraction": "had throttles far below the device's bandwidth",
}
"""What a cell that failed a per-cell check measured instead, for a caveat's clause."""


def _which(failed: int, total: int) -> str:
    if failed == total:
        return {1: "the cell", 2: "both cells"}.get(total, f"all {total} cells")
    if failed == 1:
        return f"one of the {total} cells" if total > 2 else "one of the two cells"
    return f"{failed} of {total} cells"


def caveat(
    checks: Sequence[ValidityCheck], cells: Collection[str], factors: Collection[str]
) -> str | None:
    """ "not valid here: both cells measured the page cache, not the device; the cell
    order is confounded with target" for a conclusion about `cells` comparing
    `factors`, None when no check that bears on it failed (checks that cannot tell say
    nothing here: the report's validity section lists them)."""
    failed = [c for c in bearing_on(checks, cells, factors) if c.passed is False]
    if not failed:
        return None
    clauses = []
    for name in CHECKS:
        mine = [c for c in failed if c.name == name]
        per_cell = {c.cell_key for c in mine if c.cell_key is not None}
        if per_cell:
            means = FAILED_MEANS.get(name, f"failed {name}")
            clauses.append(f"{_which(len(per_cell), len(set(cells)))} {means}")
        confounded = [str(c.factor) for c in mine if c.cell_key is None]
        if confounded:
            clauses.append(f"the cell order is confounded with {' and '.join(confounded)}")
    others = sorted({c.name for c in failed} - set(CHECKS))
    clauses += [f"{name} failed" for name in others]
    return "not valid here: " + "; ".join(clauses)


def failed_summary(checks: list[ValidityCheck]) -> str | None:
    """One line naming the failed checks (`contio results`), None when none failed."""
    failed = [c for c in checks if c.passed is False]
    if not failed:
        return None
    cells = {c.cell_key for c in checks if c.cell_key is not None}
    bad = {c.cell_key for c in failed if c.cell_key is not None}
    counts: dict[str, int] = {}
    for check in failed:
        if check.cell_key is not None:
            counts[check.name] = counts.get(check.name, 0) + 1
    parts = []
    if bad:
        named = ", ".join(f"{name} {n}" for name, n in counts.items())
        parts.append(f"{len(bad)} of {len(cells)} cells failed a check ({named})")
    confounded = [c.factor for c in failed if c.cell_key is None]
    if confounded:
        parts.append("cell order confounded with " + ", ".join(map(str, confounded)))
    return "validity: " + "; ".join(parts) + " (the report's validity section says why)"
