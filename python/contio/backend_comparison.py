"""Backend levels against a baseline, as the spec's `analysis` section asks.

`analysis: {t_test: paired|welch, baseline: <backend level>}` (`contio.spec_parts.
AnalysisSpec`): with `paired`, repetition i of a backend is matched with repetition i
of the baseline in the same group of cells (002's paired tests; only repetition
numbers both have count, so an adaptive cell's extra repetitions are left out of the
pairs); with `welch` every repetition of each side counts, as independent samples.
The baseline is the named level, or the first backend of the spec when none is named.

The report (t-test table, conclusions) and `contio results` both compare through
`Analysis`; samples are keyed by repetition number.
"""

from __future__ import annotations

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
    welch_t_test,
)

Samples = Mapping[int, float]
"""One value per repetition number (ops/s summed over a cell's containers, …)."""

TEST_NAMES = {"paired": "paired t-test", "welch": "Welch t-test"}


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

    def baseline_of(self, backends: Sequence[str]) -> str | None:
        """The baseline among `backends` (in spec order): the named one, else the first.

        None when the named baseline is not among them (nothing to compare against).
        """
        if self.baseline is not None:
            return self.baseline if self.baseline in backends else None
        return backends[0] if backends else None

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
    """One backend level against the baseline within one group of cells."""

    group: dict[str, Any]
    """The levels of the other factors that vary (empty: one group)."""
    relative: RelativeDifference
    test: TTestResult | None
    """None with fewer than two values (pairs) on a side."""


def varying_factors(cells: Sequence[ComparedCell], leave_out: Sequence[str]) -> list[str]:
    """Factors with more than one level among `cells`, in first-seen order."""
    keys: list[str] = []
    for cell in cells:
        keys += [k for k in cell.levels if k not in keys and k not in leave_out]
    return [k for k in keys if len({str(c.levels.get(k)) for c in cells}) > 1]


def compare_backends(cells: Sequence[ComparedCell], analysis: Analysis) -> list[BackendComparison]:
    """Every backend against the baseline, per group of the other varying factors.

    Cells without repetitions are left out; so are groups without the baseline.
    """
    cells = [c for c in cells if c.samples and "backend" in c.levels]
    others = varying_factors(cells, ("backend", "runtime"))
    groups: dict[tuple[str, ...], list[ComparedCell]] = {}
    for cell in cells:
        groups.setdefault(tuple(str(cell.levels.get(f)) for f in others), []).append(cell)
    found = []
    for members in groups.values():
        by_backend = {str(c.levels["backend"]): c.samples for c in members}
        baseline = analysis.baseline_of(list(by_backend))
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
            found.append(BackendComparison(group, relative, test))
    return found
