"""Validity caveats on the conclusions a run states outside its verdicts: the headline
(`contio run`, `contio results`, the report) and the report's conclusions.

A comparison whose cells failed a validity check (`contio.findings.validity`: the data
sat in the page cache, the CPU was saturated, the cell order is confounded with the
compared factor, …) still prints its numbers, followed by why they are not about
storage here, as a verdict resting on those cells is downgraded to *not valid here*
(`contio.findings.verdicts`): "btree is 43% ± 4% slower than lsm for workload=workloadc
· threads=1, p < 0.001 (not valid here: both cells measured the page cache, not the
device)". The checks that bear on a comparison are chosen by `validity_check.bearing_on`, the
clause written by `validity_check.caveat`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contio.findings.validity import check_cells, folder_meta
from contio.findings.validity_check import ValidityCheck, caveat
from contio.results.folder import load
from contio.results.index import ResultsIndex
from contio.stats.backend_comparison import (
    Analysis,
    BackendComparison,
    headline,
    headline_text,
)


@dataclass(frozen=True)
class RunChecks:
    """A run's cells (key → levels) and its validity checks."""

    cells: Mapping[str, Mapping[str, Any]]
    checks: Sequence[ValidityCheck]

    @classmethod
    def of_folder(cls, folder: Path) -> RunChecks:
        """Every validity check of a results folder (`validity.check_cells`)."""
        index = ResultsIndex.open(folder)
        try:
            cells = {c["cell_key"]: c["levels"] for c in index.cells()}
        finally:
            index.close()
        return cls(cells, check_cells(load(folder), folder_meta(folder)))

    def cells_with(
        self, levels: Mapping[str, Any], factor: str, values: Collection[Any]
    ) -> list[str]:
        """Keys of the cells with every level of `levels` and `factor` among `values`
        (levels compared as text, as the results index stores them)."""
        wanted = {str(v) for v in values}
        return [
            key
            for key, own in self.cells.items()
            if str(own.get(factor)) in wanted
            and all(str(own.get(k)) == str(v) for k, v in levels.items())
        ]

    def caveat(self, cells: Collection[str], factors: Collection[str]) -> str | None:
        """`validity_check.caveat` for a conclusion about `cells` comparing `factors`."""
        return caveat(self.checks, cells, factors)

    def comparison_cells(self, item: BackendComparison) -> list[str]:
        """The two cells a backend (or target) comparison compares."""
        sides = (item.relative.level, item.relative.baseline)
        return self.cells_with(item.group, item.factor, sides)

    def comparison_caveat(self, item: BackendComparison) -> str | None:
        """Why a comparison's numbers are not about storage here (None: no check failed)."""
        return self.caveat(self.comparison_cells(item), {item.factor})


def caveated(sentence: str, note: str | None) -> str:
    """`sentence` with `note` in parentheses at its end (before a final full stop)."""
    if not note:
        return sentence
    if sentence.endswith("."):
        return f"{sentence[:-1]} ({note})."
    return f"{sentence} ({note})"


def headline_with_caveat(
    found: Sequence[BackendComparison], analysis: Analysis, checks: RunChecks | None
) -> str | None:
    """The run's headline (`backend_comparison.headline_text`) with the caveat of the
    comparison it states; when none is significant, with the caveat of every compared
    cell. None when nothing was compared."""
    text = headline_text(found, analysis)
    if text is None or checks is None:
        return text
    top = headline(found)
    if top is not None:
        return caveated(text, checks.comparison_caveat(top))
    cells = list(dict.fromkeys(k for item in found for k in checks.comparison_cells(item)))
    return caveated(text, checks.caveat(cells, {item.factor for item in found}))
