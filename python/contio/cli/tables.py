"""The tables printed at the end of a run and by `contio results`: per cell, the
backends against the baseline (the spec's `analysis`), and mixes against standalone."""

from __future__ import annotations

import math

from rich.table import Table

from contio.findings.caveats import RunChecks, headline_with_caveat
from contio.findings.verdicts import Counts, Verdict
from contio.results.summary import LATENCY_AGGREGATION, CellSummary
from contio.stats import format_p
from contio.stats.backend_comparison import (
    Analysis,
    BackendComparison,
    ComparedCell,
    compare_backends,
)
from contio.stats.sentence import degradation_change


def _number(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) else f"{value:,.{digits}f}"


def _varying(summaries: list[CellSummary]) -> tuple[list[str], dict[str, object]]:
    """Factors whose level differs between cells, and the common levels of the others."""
    keys: list[str] = []
    for s in summaries:
        keys += [k for k in s.levels if k not in keys]
    varying, constant = [], {}
    for key in keys:
        values = {str(s.levels.get(key)) for s in summaries}
        if len(values) > 1 or key in ("target", "workload", "mix", "threads"):
            varying.append(key)
        else:
            constant[key] = summaries[0].levels.get(key)
    return varying, constant


def results_table(summaries: list[CellSummary]) -> Table:
    """One row per cell: its levels, ops/s mean ± 95% CI half-width, p95, p99, repetitions."""
    varying, constant = _varying(summaries)
    common = ", ".join(f"{k.removeprefix('properties.')}={v}" for k, v in constant.items())
    reasons = sorted({s.reason for s in summaries if s.status == "skipped" and s.reason})
    skipped = "".join(f"\nskipped: {reason}" for reason in reasons)
    skipped += "".join(
        f"\nfailed: cell {s.cell_index} ({s.label}): {s.reason or 'no reason recorded'}"
        for s in summaries
        if s.status == "failed"
    )
    table = Table(
        title="contio results" + (f" ({common})" if common else ""),
        caption=(
            "ops/s: per repetition the sum over containers, warm-up left out; mean ± 95% "
            f"confidence half-width (Student t over repetitions).\n{LATENCY_AGGREGATION}."
            + (
                "\nMiB/s, IOPS (file workloads): per run after the warm-up, summed over "
                "containers, mean over repetitions."
                if any(s.file_io for s in summaries)
                else ""
            )
            + f"{skipped}"
        ),
        caption_justify="left",
    )
    for name in varying:
        table.add_column(name.removeprefix("properties."), no_wrap=True)
    file_io = any(s.file_io for s in summaries)
    io_columns = ("read MiB/s", "written MiB/s", "IOPS") if file_io else ()
    for name in ("ops/s mean ± 95% CI", "±%", "p95 µs", "p99 µs", *io_columns, "reps"):
        table.add_column(name, justify="right", no_wrap=True)
    for s in summaries:
        ci = s.throughput
        half = "" if math.isnan(ci.half_width) else f" ± {_number(ci.half_width)}"
        relative = "–" if math.isnan(ci.half_width) else f"{100 * ci.relative_half_width:.1f}%"
        levels = [str(s.levels.get(k, "")) for k in varying]
        if s.status in ("skipped", "failed") and not s.repetitions:
            table.add_row(
                *levels, f"{s.status} (see below)", "", "", "", *("" for _ in io_columns), "0"
            )
            continue
        table.add_row(
            *levels,
            _number(ci.mean) + half,
            relative,
            _number(s.p95_latency_us),
            _number(s.p99_latency_us),
            *(
                "–" if math.isnan(v) else _number(v)
                for v in (s.read_mib_per_sec, s.written_mib_per_sec, s.iops)[: len(io_columns)]
            ),
            str(s.repetitions) + (" (failed)" if s.status == "failed" else ""),
        )
    return table


def _percent(fraction: float) -> str:
    if math.isnan(fraction):
        return "–"
    places = 1
    while places < 4 and fraction != -1 and f"{fraction * 100:+.{places}f}" == f"{-100:.{places}f}":
        places += 1  # 99.96% slower is not stopped: never print −100.0% for it
    return f"{fraction * 100:+.{places}f}%".replace("-", "−")


def interval_text(low: float, high: float, unbounded: bool) -> str:
    """ "−12.0% to +3.5%", "unbounded", or "–" without an interval."""
    if math.isnan(low) or math.isnan(high):
        return "–"
    return "unbounded" if unbounded else f"{_percent(low)} to {_percent(high)}"


def _comparisons(summaries: list[CellSummary], analysis: Analysis) -> list[BackendComparison]:
    cells = [ComparedCell(s.levels, dict(s.samples)) for s in summaries if s.samples]
    return compare_backends(cells, analysis)


def headline(
    summaries: list[CellSummary], analysis: Analysis, checks: RunChecks | None = None
) -> str | None:
    """The run's headline sentence, as the report states it, with the caveat of the
    validity checks its cells failed (None: nothing compared)."""
    return headline_with_caveat(_comparisons(summaries, analysis), analysis, checks)


def comparison_table(summaries: list[CellSummary], analysis: Analysis) -> Table | None:
    """Each backend (with one backend: each target) against the baseline per group of
    cells; None when neither has two levels."""
    found = _comparisons(summaries, analysis)
    if not found:
        return None
    baseline = found[0].relative.baseline
    factor = found[0].factor
    group_columns = list(found[0].group)
    table = Table(
        title=f"{factor}s against {baseline} ({analysis.test_name})",
        caption=(
            "ops/s per repetition (sum over containers); difference: mean ratio − 1 with its "
            f"95% Fieller interval (lower bound −100% when the {factor} is not distinguishable "
            "from 0; unbounded when the baseline is not); mean diff., s.d., t, p: the "
            + analysis.test_name
            + (" over repetitions matched by number" if analysis.paired else "")
            + " (002's Table 1)"
        ),
        caption_justify="left",
    )
    for name in group_columns:
        table.add_column(name.removeprefix("properties."), no_wrap=True)
    table.add_column(factor, no_wrap=True)
    for name in ("difference", "95% CI", "mean diff.", "s.d.", "t", "p", "n"):
        table.add_column(name, justify="right", no_wrap=True)
    notes = any(item.relative.note for item in found)
    if notes:
        table.add_column("note")
    for item in found:
        rel, test = item.relative, item.test
        numbers = (
            (_number(test.mean_difference), _number(test.std_deviation), f"{test.t:.3f}",
             format_p(test.p), f"{test.n_a}" if test.kind == "paired" else f"{test.n_a}/{test.n_b}")
            if test is not None
            else ("–", "–", "–", "–", "1")
        )  # fmt: skip
        table.add_row(
            *(str(item.group[c]) for c in group_columns),
            rel.level,
            _percent(rel.estimate),
            interval_text(rel.low, rel.high, rel.unbounded),
            *numbers,
            *((rel.note,) if notes else ()),
        )
    return table


def mix_table(summaries: list[CellSummary]) -> Table | None:
    """Each member of each mix cell against standalone: ops/s in the mix and alone, its
    degradation with the 95% interval and Welch p, and the mix's Jain index (the numbers
    and wording of the report's conclusions); None without a mix to compare."""
    mixed = [s for s in summaries if s.mix is not None]
    if not mixed:
        return None
    varying, _ = _varying(mixed)
    columns = [k for k in varying if k not in ("target", "workload")]
    table = Table(
        title="mixes against standalone",
        caption=(
            "standalone: the same application alone, every other level equal; ops/s per "
            "repetition summed over the member's containers; degradation = 1 − mixed / "
            "standalone with its 95% Fieller interval, Welch p; Jain's fairness index over "
            "what each member kept (1 = all kept the same share)"
        ),
        caption_justify="left",
    )
    for name in columns:
        table.add_column(name.removeprefix("properties."), no_wrap=True)
    table.add_column("member", no_wrap=True)
    for name in ("ops/s in mix", "ops/s alone"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("degradation (95% CI)")
    for name in ("p", "Jain"):
        table.add_column(name, justify="right", no_wrap=True)
    for s in mixed:
        assert s.mix is not None
        jain = f"{s.mix.fairness.jain_index:.2f}" if s.mix.fairness else "–"
        for i, member in enumerate(s.mix.members):
            lost = member.degradation
            table.add_row(
                *(str(s.levels.get(k, "")) if i == 0 else "" for k in columns),
                member.name,
                _number(member.mixed_mean),
                _number(member.standalone_mean),
                degradation_change(lost),
                format_p(lost.p),
                jain if i == 0 else "",
            )
    return table


def findings_table(verdicts: list[Verdict]) -> Table | None:
    """The verdict on each of the spec's claims (None when it lists none)."""
    if not verdicts:
        return None
    table = Table(
        title="The paper's findings on this machine",
        caption=f"{Counts.of(verdicts).text()} · details in findings.json and the report",
    )
    for name in ("finding", "about", "verdict", "why"):
        table.add_column(name, overflow="fold")
    for v in verdicts:
        about = " · ".join(x for x in (f"paper {v.paper}" if v.paper else "", v.subject or "") if x)
        table.add_row(v.id, about, v.outcome, v.summary)
    return table
