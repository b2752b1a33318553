"""Backend (or target) levels against a baseline, as the spec's `analysis` section asks.

`analysis: {t_test: paired|welch, baseline: <backend level>}` (`contio.experiment.parts.
AnalysisSpec`): with `paired`, repetition i of a backend is matched with repetition i of
the baseline in the same group of cells (the paired tests of paper 002, docs/papers.md;
only repetition numbers both have count, so an adaptive cell's extra repetitions are left
out of the pairs); with `welch` every repetition of each side counts, as independent
samples. The baseline is the named level, or the first backend of the spec when none is
named.

With a single backend and two or more targets (the default experiment: the `lsm` and
`btree` engines on one directory) the targets are compared instead, against the first
target of the spec (`compared_factor`).

The report (t-test table, conclusions) and `contio results` both compare through
`Analysis`; samples are keyed by repetition number. `headline` picks the one result a
run states first: the largest significant difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contio.errors import StatisticsInputError
from contio.stats import (
    RelativeDifference,
    TTestResult,
    paired_relative_difference,
    paired_t_test,
    relative_difference,
    relative_sentence,
    welch_t_test,
)

Samples = Mapping[int, float]
"""One value per repetition number (ops/s summed over a cell's containers, …)."""

TEST_NAMES = {"paired": "paired t-test", "welch": "Welch t-test"}
COMPARED_FACTORS = ("backend", "target")
"""What is compared against a baseline, in order: the first with two or more levels."""


@dataclass(frozen=True)
class Analysis:
    """How backend levels are compared: the test and the baseline level."""

    t_test: str = "welch"
    baseline: str | None = None

    @classmethod
    def of_spec(cls, spec: Mapping[str, Any]) -> Analysis:
        """From a results folder's `spec.json` (folders older than `analysis`: Welch, first)."""
        section = spec.get("analysis") or {}
        return cls(str(section.get("t_test") or "welch"), section.get("baseline"))

    @property
    def paired(self) -> bool:
        return self.t_test == "paired"

    @property
    def test_name(self) -> str:
        return TEST_NAMES.get(self.t_test, self.t_test)

    def baseline_of(self, levels: Sequence[str], factor: str = "backend") -> str | None:
        """The baseline among `levels` (in spec order): the named one, else the first.

        `analysis.baseline` names a backend level; targets are compared against the
        first. None when the named baseline is not among them (nothing to compare).
        """
        if self.baseline is not None and factor == "backend":
            return self.baseline if self.baseline in levels else None
        return levels[0] if levels else None

    def sides(self, level: Samples, baseline: Samples) -> tuple[list[float], list[float]]:
        """The values compared: matched by repetition number when paired, else all."""
        if self.paired:
            common = sorted(set(level) & set(baseline))
            return [level[r] for r in common], [baseline[r] for r in common]
        return [level[r] for r in sorted(level)], [baseline[r] for r in sorted(baseline)]

    def t_test_of(
        self, level: Samples, baseline: Samples, level_name: str, baseline_name: str
    ) -> TTestResult:
        """level − baseline; `StatisticsInputError` with fewer than two values (pairs) a side."""
        a, b = self.sides(level, baseline)
        test = paired_t_test if self.paired else welch_t_test
        return test(a, b, level_name, baseline_name)

    def relative_of(
        self, level: Samples, baseline: Samples, level_name: str, baseline_name: str
    ) -> RelativeDifference:
        """mean(level) / mean(baseline) − 1 with its Fieller interval (paired or Welch form)."""
        a, b = self.sides(level, baseline)
        if not a or not b:
            raise StatisticsInputError(level_name, "no repetition to compare (no common pairs)")
        compare = paired_relative_difference if self.paired else relative_difference
        return compare(a, b, level_name, baseline_name)


@dataclass(frozen=True)
class ComparedCell:
    """What a comparison needs of a cell: its levels and its per-repetition values."""

    levels: Mapping[str, Any]
    samples: Samples


@dataclass(frozen=True)
class BackendComparison:
    """One backend (or target) level against the baseline within one group of cells."""

    group: dict[str, Any]
    """The levels of the other factors that vary (empty: one group)."""
    relative: RelativeDifference
    test: TTestResult | None
    """None with fewer than two values (pairs) on a side."""
    factor: str = "backend"
    """What was compared: `backend`, or `target` with one backend."""

    @property
    def context(self) -> str:
        """ "for workload=workloada · threads=16" (empty with one group)."""
        parts = [f"{k.removeprefix('properties.')}={v}" for k, v in self.group.items()]
        return f"for {' · '.join(parts)}" if parts else ""

    @property
    def size(self) -> float:
        """|log(mean ratio)|: how large the difference is, a halving as large as a doubling."""
        ratio = 1 + self.relative.estimate
        return abs(math.log(ratio)) if ratio > 0 else math.inf


def varying_factors(cells: Sequence[ComparedCell], leave_out: Sequence[str]) -> list[str]:
    """Factors with more than one level among `cells`, in first-seen order."""
    keys: list[str] = []
    for cell in cells:
        keys += [k for k in cell.levels if k not in keys and k not in leave_out]
    return [k for k in keys if len({str(c.levels.get(k)) for c in cells}) > 1]


def compared_factor(cells: Sequence[ComparedCell]) -> str | None:
    """`backend` when the cells have two or more backends, else `target` when they have
    two or more targets, else None (nothing to compare against a baseline)."""
    for factor in COMPARED_FACTORS:
        if len({str(c.levels[factor]) for c in cells if factor in c.levels}) > 1:
            return factor
    return None


def compare_backends(cells: Sequence[ComparedCell], analysis: Analysis) -> list[BackendComparison]:
    """Every backend (or, with one backend, every target) against the baseline, per group
    of the other varying factors.

    Cells without repetitions are left out; so are groups without the baseline.
    """
    cells = [c for c in cells if c.samples]
    factor = compared_factor(cells)
    if factor is None:
        return []
    cells = [c for c in cells if factor in c.levels]
    others = varying_factors(cells, (factor, "runtime"))
    groups: dict[tuple[str, ...], list[ComparedCell]] = {}
    for cell in cells:
        groups.setdefault(tuple(str(cell.levels.get(f)) for f in others), []).append(cell)
    found = []
    for members in groups.values():
        by_backend = {str(c.levels[factor]): c.samples for c in members}
        baseline = analysis.baseline_of(list(by_backend), factor)
        if baseline is None or len(by_backend) < 2:
            continue
        group = {f: members[0].levels.get(f) for f in others}
        for name, samples in by_backend.items():
            if name == baseline:
                continue
            try:
                relative = analysis.relative_of(samples, by_backend[baseline], name, baseline)
            except StatisticsInputError:
                continue
            try:
                test = analysis.t_test_of(samples, by_backend[baseline], name, baseline)
            except StatisticsInputError:
                test = None
            found.append(BackendComparison(group, relative, test, factor))
    return found


def headline(found: Sequence[BackendComparison]) -> BackendComparison | None:
    """The largest significant difference (by |log ratio|), or None when none is.

    Chosen from the data, so every experiment has one without naming it in the spec;
    it is the largest of `len(found)` comparisons, each tested on its own (no
    correction for the choice): the others are listed beside it.
    """
    significant = [item for item in found if item.relative.significant]
    return max(significant, key=lambda item: item.size, default=None)


def headline_text(found: Sequence[BackendComparison], analysis: Analysis) -> str | None:
    """The run's headline, as the report and the terminal state it: the largest
    significant difference with its interval and the t-test's p, or that none of the
    comparisons is significant. None when nothing was compared."""
    if not found:
        return None
    top = headline(found)
    count = f"{len(found)} comparison{'s' if len(found) != 1 else ''}"
    if top is None:
        return (
            f"No significant difference between the {found[0].factor}s in {count} "
            f"({analysis.test_name}, 5%)."
        )
    return f"Largest significant difference of {count}: " + relative_sentence(
        top.relative, top.context
    )
