"""Sections about the number of containers (003): scaling with saturation point and
valley (Fig. 3, 5–7), p95 latency against containers (Fig. 4), and heterogeneous
mixes against standalone with degradation and Jain's fairness (Fig. 8–11).

A mix's application is identified by what its containers ran (workload on target);
container k of a cell with `containers` = c per application belongs to the
application (k − 1) // c of the mix. Its standalone throughput is the cell whose mix
has that application alone, with every other level equal (the same count).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from contio.errors import StatisticsInputError
from contio.report import figures
from contio.report.experiment import Experiment, group_label, groups
from contio.report.page import Section, figure
from contio.stats import (
    MixFairness,
    Saturation,
    Valley,
    confidence_interval,
    degradation,
    find_valley,
    mix_fairness,
    saturation_point,
)

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
        for c, p95 in zip(r.cells["containers"], r.cells["p95_ms"])
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
    """One heterogeneous cell: each application's throughput against its standalone."""

    title: str
    mix: str
    rows: pd.DataFrame
    """`application`, `mean`, `ci_low`, `ci_high`, `standalone_mean`."""
    fairness: MixFairness | None
    degradations: list


def _applications(exp: Experiment, cell: pd.Series) -> list[tuple[str, list[float]]]:
    """(workload on target, per-repetition ops/s) for each application of a mix cell."""
    per_app = int(cell["containers"]) if "containers" in cell else 1
    rows = exp.runs[(exp.runs["cell_key"] == cell["cell_key"]) & (exp.runs["status"] == "ok")]
    rows = rows.assign(part=(rows["container"] - 1) // per_app)
    found = []
    for _part, mine in rows.groupby("part", sort=True):
        name = f"{mine['workload'].iloc[0]} on {mine['target'].iloc[0]}"
        sums = mine.groupby("repetition")["steady_ops_per_sec"].sum()
        found.append((name, [float(v) for v in sums]))
    return found


def mix_results(exp: Experiment) -> list[MixResult]:
    """Every mix cell with two or more applications that has standalone cells to compare."""
    done = exp.done()
    if done.empty or "mix" not in exp.factors:
        return []
    others = [f for f in exp.factors if f not in ("mix",) and f in done]
    apps = {row["cell_key"]: _applications(exp, row) for _, row in done.iterrows()}
    alone: dict[tuple, tuple[str, list[float]]] = {}
    for _, row in done.iterrows():
        if len(apps[row["cell_key"]]) == 1:
            name, samples = apps[row["cell_key"]][0]
            key = (name, *(str(row[f]) for f in others))
            alone[key] = (str(row["mix"]), samples)
    found = []
    for _, row in done.iterrows():
        members = apps[row["cell_key"]]
        if len(members) < 2:
            continue
        entries, pairs, degradations = [], {}, []
        for name, mixed in members:
            standalone = alone.get((name, *(str(row[f]) for f in others)))
            if standalone is None or not mixed:
                continue
            label, base = standalone
            ci = confidence_interval(mixed, 0.95) if len(mixed) >= 2 else None
            center = sum(mixed) / len(mixed)
            entries.append(
                {"application": label, "mean": center, "ci_low": ci.low if ci else center,
                 "ci_high": ci.high if ci else center, "standalone_mean": sum(base) / len(base)}
            )  # fmt: skip
            pairs[label] = (mixed, base)
            degradations.append(degradation(mixed, base, label))
        if not entries:
            continue
        fairness = mix_fairness(pairs) if len(pairs) >= 2 else None
        varying = [f for f in exp.varying(done) if f != "mix"]
        title = f"{row['mix']} · {group_label(row, varying)}"
        frame = pd.DataFrame(entries).assign(mix=str(row["mix"]))
        found.append(MixResult(title, str(row["mix"]), frame, fairness, degradations))
    return found


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
                f"each application's ops/s in the mix as % of standalone, 95% CI; {rest}",
            )
        )  # fmt: skip
    if section.blocks:
        section.intro = (
            "Standalone: the same application alone with the same count of containers. "
            "Labels give the degradation; Jain's fairness index under each mix."
        )
    return section
