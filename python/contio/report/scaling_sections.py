"""Sections about the number of containers (paper 003,
docs/papers.md): scaling with saturation point and
valley (Fig. 3, 5–7), p95 latency against containers (Fig. 4), and heterogeneous
mixes against standalone with degradation and Jain's fairness (Fig. 8–11).

Mixes against standalone come from `contio.stats.mix_comparison` (the numbers summary.csv
and `contio results` print too).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from contio.errors import StatisticsInputError
from contio.report import figures
from contio.report.experiment import Experiment, group_label, groups
from contio.report.page import Section, figure
from contio.stats import (
    Degradation,
    MixFairness,
    Saturation,
    Valley,
    find_valley,
    saturation_point,
)
from contio.stats.mix_comparison import MixComparison, compare_mixes

MAX_FIGURES = 40


@dataclass(frozen=True)
class ScalingResult:
    """One series of cells that differ only in containers, and what the statistics found."""

    title: str
    cells: pd.DataFrame
    saturation: Saturation | None
    valley: Valley | None


def scaling_results(exp: Experiment) -> list[ScalingResult]:
    """Every scaling series of the experiment (cells with ≥ 2 container counts)."""
    done = exp.done()
    if done.empty or "containers" not in exp.varying(done):
        return []
    others = [f for f in exp.varying(done) if f != "containers"]
    found = []
    for levels, part in groups(done, others):
        part = part.sort_values("containers")
        if part["containers"].nunique() < 2:
            continue
        counts = [float(c) for c in part["containers"]]
        samples = [list(s) for s in part["samples"]]
        try:
            saturation = saturation_point(counts, samples)
            valley = find_valley(counts, samples)
        except StatisticsInputError:
            saturation, valley = None, None
        found.append(ScalingResult(group_label(levels, others), part, saturation, valley))
    return found


def scaling_section(exp: Experiment, results: list[ScalingResult]) -> Section:
    section = Section("scaling", "Throughput against containers")
    for result in results[:MAX_FIGURES]:
        part = result.cells
        data = pd.DataFrame(
            {
                "containers": part["containers"].astype(float),
                "cumulative_mean": part["mean"],
                "cumulative_ci_low": part["ci_low"],
                "cumulative_ci_high": part["ci_high"],
                "per_container_mean": part["mean"] / part["members"].astype(float),
                "cpu_percent": part["cpu_percent"],
                "disk_percent": part["disk_percent"],
            }
        )
        point = result.saturation.point if result.saturation else None
        valley = result.valley
        svg = figures.scaling(
            data,
            saturation=point,
            valley=(valley.peak_level, valley.bottom_level) if valley else None,
            title=result.title,
        )
        section.blocks.append(
            figure(svg, "scaling", f"cumulative and per-container ops/s; {result.title}")
        )
    if section.blocks:
        section.intro = (
            "Cumulative: ops/s summed over every container of a cell, mean and 95% CI. "
            "Per container: the cumulative mean divided by the cell's containers (every "
            "application's). "
            "CPU and disk utilization are drawn beside when the run phases record them."
        )
    return section


def latency_section(exp: Experiment, results: list[ScalingResult]) -> Section:
    section = Section("latency-vs-containers", "p95 latency against containers")
    rows = [
        {"series": r.title, "containers": float(c), "latency_ms": p95}
        for r in results
        for c, p95 in zip(r.cells["containers"], r.cells["p95_ms"], strict=True)
    ]
    if rows:
        data = pd.DataFrame(rows).dropna()
        if not data.empty:
            svg = figures.latency_vs_containers(data, "p95")
            section.blocks.append(
                figure(svg, "latency-vs-containers", "p95 latency per container, mean over runs")
            )
    return section


@dataclass(frozen=True)
class MixResult:
    """One heterogeneous cell against standalone (`contio.stats.mix_comparison`), for the report."""

    title: str
    comparison: MixComparison

    @property
    def mix(self) -> str:
        return self.comparison.mix

    @property
    def fairness(self) -> MixFairness | None:
        return self.comparison.fairness

    @property
    def degradations(self) -> list[Degradation]:
        return [m.degradation for m in self.comparison.members]

    @property
    def rows(self) -> pd.DataFrame:
        """The chart's rows: `application`, `mean`, `ci_low`, `ci_high`, `standalone_mean`,
        `mix`; the interval is the degradation's (of mixed / standalone), so the error
        bars are the intervals the conclusions state (none above an unbounded one)."""
        entries = []
        for member in self.comparison.members:
            alone, lost = member.standalone_mean, member.degradation
            low = high = member.mixed_mean
            if lost.relative.has_interval:
                low = (1 - lost.high) * alone
                high = (1 - lost.low) * alone if math.isfinite(lost.low) else math.nan
            entries.append(
                {"application": member.name, "mean": member.mixed_mean, "ci_low": low,
                 "ci_high": high, "standalone_mean": alone, "mix": self.mix}
            )  # fmt: skip
        return pd.DataFrame(entries)


def mix_results(exp: Experiment) -> list[MixResult]:
    """Every mix cell with two or more applications that has standalone cells to compare."""
    done = exp.done()
    if done.empty or "mix" not in exp.factors:
        return []
    varying = [f for f in exp.varying(done) if f != "mix"]
    return [
        MixResult(f"{found.mix} · {group_label(found.levels, varying)}", found)
        for found in compare_mixes(exp.cell_records, exp.runs.to_dict("records"))
    ]


def mix_section(exp: Experiment, results: list[MixResult]) -> Section:
    section = Section("mixes", "Mixes against standalone")
    by_title: dict[str, list[MixResult]] = {}
    for r in results:  # one chart per set of other levels, every mix as a group of bars
        rest = r.title.split(" · ", 1)[1] if " · " in r.title else ""
        by_title.setdefault(rest, []).append(r)
    for rest, items in list(by_title.items())[:MAX_FIGURES]:
        data = pd.concat([r.rows for r in items], ignore_index=True)
        jain = {r.mix: r.fairness.jain_index for r in items if r.fairness}
        svg = figures.mix_bars(data, jain=jain, title=rest)
        section.blocks.append(
            figure(
                svg, "mix-bars",
                f"each application's ops/s in the mix as % of standalone, 95% CI of the "
                f"ratio; {rest}",
            )
        )  # fmt: skip
    if section.blocks:
        section.intro = (
            "Standalone: the same application alone with the same count of containers. "
            "Labels give the degradation; Jain's fairness index under each mix."
        )
    return section
