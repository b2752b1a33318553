"""Sections that compare backends: throughput against threads (paper 000, Fig. 3–5),
t-tests in the Table 1 layout of paper 002 and its read/write bars (both in
docs/papers.md).

What is compared is the backend, or with one backend the target (the default
experiment's `lsm` and `btree`: `Experiment.compared_factor`). Cells are grouped by every
other varying factor (and the thread count for the line chart); within a group every
level is tested against the baseline the spec's `analysis` names (default: the first),
with the t-test it names: `paired` matches repetitions by number, `welch` (default) takes
them as independent runs (`contio.stats.backend_comparison`).
"""

from __future__ import annotations

import math

import pandas as pd

from contio.errors import StatisticsInputError
from contio.report import figures
from contio.report.experiment import Experiment, group_label, groups
from contio.report.page import Section, figure
from contio.report.raw_documents import operation_rates
from contio.report.ttest_table import TTestRow, t_test_table

MAX_FIGURES = 40


def throughput_section(exp: Experiment) -> Section:
    """One chart per group of cells that differ in threads: a line per backend (with one
    backend: per target), CI bands."""
    section = Section("throughput-vs-threads", "Throughput against threads")
    done = exp.done()
    if done.empty or "threads" not in exp.varying(done):
        return section
    series = exp.compared_factor() or "backend"
    others = [f for f in exp.varying(done) if f not in ("threads", series)]
    for levels, part in groups(done, others)[:MAX_FIGURES]:
        if part["threads"].nunique() < 2:
            continue
        data = part.assign(backend=part[series].astype(str))
        title = group_label(levels, others)
        svg = figures.throughput_vs_threads(data, title=title, series=series)
        section.blocks.append(
            figure(svg, "throughput-vs-threads", f"ops/s mean and 95% CI band; {title}")
        )
    section.intro = f"One line per {series}; the band is the 95% confidence interval of the mean."
    return section


def _rates_by_repetition(exp: Experiment) -> pd.DataFrame:
    """Per cell and completed repetition: ops/s, reads/s and writes/s summed over containers."""
    ok = exp.runs[exp.runs["status"] == "ok"]
    rated = operation_rates(exp.folder, ok)
    sums = rated.groupby(["cell_key", "repetition"])[
        ["steady_ops_per_sec", "reads_per_sec", "writes_per_sec"]
    ].sum(min_count=1)
    counts = rated.groupby(["cell_key", "repetition"])["container"].count()
    members = exp.cells.set_index("cell_key")["members"]
    complete = [key for key, n in counts.items() if n == members.get(key[0], -1)]
    return sums.loc[complete].reset_index()


OPERATIONS = (
    ("ops/s", "steady_ops_per_sec"),
    ("reads/s", "reads_per_sec"),
    ("writes/s", "writes_per_sec"),
)


def _samples(reps: pd.DataFrame, cell_key: str, column: str) -> dict[int, float]:
    """Per repetition number, the cell's value of `column` (NaN left out)."""
    mine = reps[reps["cell_key"] == cell_key]
    return {
        int(r): float(v)
        for r, v in zip(mine["repetition"], mine[column], strict=True)
        if not math.isnan(v)
    }


def backend_tests_section(exp: Experiment) -> Section:
    """t-tests of every backend (with one backend: target) against the baseline (paper 002's
    Table 1) and read/write bars."""
    section = Section("t-tests", "Backends compared: t-tests, reads and writes")
    done = exp.done()
    factor = exp.compared_factor()
    if done.empty or factor is None:
        return section
    section.title = f"{factor.capitalize()}s compared: t-tests, reads and writes"
    analysis = exp.analysis
    reps = _rates_by_repetition(exp)
    others = [f for f in exp.varying(done) if f != factor]
    rows: list[TTestRow] = []
    bars = []
    for levels, part in groups(done, others):
        experiment = group_label(levels, others)
        backends = list(dict.fromkeys(part[factor].astype(str)))
        keys = dict(zip(part[factor].astype(str), part["cell_key"], strict=True))
        bar_rows = []
        for backend in backends:
            for name, column in OPERATIONS[1:]:
                values = list(_samples(reps, keys[backend], column).values())
                if values and any(values):
                    spread = pd.Series(values).std() if len(values) > 1 else 0.0
                    bar_rows.append(
                        {"storage": backend, "operation": name, "mean": sum(values) / len(values),
                         "std": spread}
                    )  # fmt: skip
        if bar_rows:
            bars.append((experiment, pd.DataFrame(bar_rows)))
        baseline = analysis.baseline_of(backends, factor)
        for backend in backends:
            if baseline is None or backend == baseline:
                continue
            for name, column in OPERATIONS:
                a = _samples(reps, keys[backend], column)
                b = _samples(reps, keys[baseline], column)
                if not any(a.values()) and not any(b.values()):
                    continue
                try:
                    result = analysis.t_test_of(a, b, backend, baseline)
                except StatisticsInputError:
                    continue  # fewer than two repetitions (pairs) on a side
                rows.append(TTestRow(experiment, name, result))
    if rows:
        named = (
            "the spec's baseline"
            if analysis.baseline and factor == "backend"
            else f"the first {factor}"
        )
        pairing = (
            "repetitions matched by number"
            if analysis.paired
            else "repetitions as independent runs"
        )
        section.blocks.append(
            t_test_table(
                rows,
                f"{analysis.test_name}s of each {factor} minus the baseline ({named}), "
                f"{pairing}, per repetition sums over containers; sig. is the two-sided p",
            )
        )
    for experiment, data in bars[:MAX_FIGURES]:
        svg = figures.read_write_bars(data, unit="operations/s", title=experiment)
        section.blocks.append(
            figure(svg, "read-write-bars", f"reads/s and writes/s, mean ± 1 s.d.; {experiment}")
        )
    section.intro = (
        f"Rows in bold are significant at 5%. Test: {analysis.test_name} (the spec's "
        "analysis.t_test). ops/s, reads/s and writes/s leave the warm-up out."
    )
    return section
