"""Two experiments side by side: their common cells and how B differs from A.

Cells are common when every factor level is the same (the cell key of the results
index). For each, B's cumulative ops/s against A's as a relative difference with its
Fieller interval (never below −100%; "interval unbounded", with the reason, when A's
ops/s are not distinguishable from 0), and Welch's p of "no difference"
(`contio.stats.relative`); repetitions of two experiments are independent runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from contio.report.experiment import Experiment
from contio.report.page import Section, table
from contio.stats import RelativeDifference, format_p, relative_difference
from contio.stats.sentence import magnitude_with_interval


@dataclass(frozen=True)
class CellComparison:
    """One common cell: A's and B's means and B against A."""

    label: str
    mean_a: float
    mean_b: float
    n_a: int
    n_b: int
    difference: RelativeDifference | None
    """None when either side has no completed repetition."""


@dataclass(frozen=True)
class Comparison:
    """The common cells of A and B, and the cells only one of them has."""

    name_a: str
    name_b: str
    cells: list[CellComparison]
    only_a: list[str]
    only_b: list[str]


def compare(a: Experiment, b: Experiment, confidence: float = 0.95) -> Comparison:
    """Line up the cells of `a` and `b` by their levels; B is compared against A."""
    rows_a = {r["cell_key"]: r for _, r in a.cells.iterrows()}
    rows_b = {r["cell_key"]: r for _, r in b.cells.iterrows()}
    found = []
    for key, ra in rows_a.items():
        if key not in rows_b:
            continue
        rb = rows_b[key]
        diff = None
        if ra["samples"] and rb["samples"]:
            diff = relative_difference(
                list(rb["samples"]), list(ra["samples"]), "B", "A", confidence
            )
        found.append(
            CellComparison(str(ra["label"]), ra["mean"], rb["mean"], ra["repetitions"],
                           rb["repetitions"], diff)
        )  # fmt: skip
    return Comparison(
        a.name if a.name != b.name else a.folder.name,
        b.name if a.name != b.name else b.folder.name,
        found,
        [str(r["label"]) for k, r in rows_a.items() if k not in rows_b],
        [str(r["label"]) for k, r in rows_b.items() if k not in rows_a],
    )


def _number(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:,.0f}"


def difference_text(diff: RelativeDifference | None) -> tuple[str, str, str]:
    """(change with interval, p, verdict) of B against A, for tables and text."""
    if diff is None:
        return "–", "–", "no data on a side"
    low, high = diff.low, diff.high
    change = magnitude_with_interval(
        diff.estimate, low, high, diff.confidence, diff.has_interval, diff.note
    )
    change = change if change.startswith("-") else f"+{change}"
    if not diff.has_interval:
        return change, "n/a", "one repetition on a side"
    verdict = "significant" if diff.significant else "not significant"
    return change, format_p(diff.p), verdict


HEADER = ("cell", "A ops/s", "B ops/s", "reps A/B", "B vs A (95% CI)", "p (Welch)", "verdict")


def comparison_rows(result: Comparison) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for c in result.cells:
        change, p, verdict = difference_text(c.difference)
        rows.append(
            (c.label, _number(c.mean_a), _number(c.mean_b), f"{c.n_a}/{c.n_b}", change, p, verdict)
        )
    return rows


def comparison_text(result: Comparison) -> str:
    """The comparison as aligned plain text (the CLI prints it)."""
    rows = [HEADER, *comparison_rows(result)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    lines = [f"A: {result.name_a}", f"B: {result.name_b}", ""]
    for row in rows:
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    lines.append("")
    lines.append(
        f"{len(result.cells)} common cells; {len(result.only_a)} only in A, "
        f"{len(result.only_b)} only in B"
    )
    lines += [f"only in A: {label}" for label in result.only_a]
    lines += [f"only in B: {label}" for label in result.only_b]
    return "\n".join(lines) + "\n"


def comparison_section(result: Comparison) -> Section:
    """The comparison as a report section."""
    section = Section("comparison", f"Compared with {result.name_a}")
    section.intro = (
        f"A: {result.name_a}; B: {result.name_b} (this report). B's ops/s against A's per "
        "common cell: relative difference with its Fieller 95% interval, Welch p."
    )
    section.blocks.append(
        table(HEADER, comparison_rows(result), "Common cells", numeric=(1, 2), css_class="compare")
    )
    only = [("A", label) for label in result.only_a] + [("B", label) for label in result.only_b]
    if only:
        section.blocks.append(table(("only in", "cell"), only, "Cells not in both"))
    return section
