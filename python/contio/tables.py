"""The results table printed at the end of a run."""

from __future__ import annotations

import math

from rich.table import Table

from contio.summary import LATENCY_AGGREGATION, CellSummary


def _number(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) else f"{value:,.{digits}f}"


def results_table(summaries: list[CellSummary]) -> Table:
    """target × workload × threads → ops/s mean ± 95% CI half-width, p95, p99."""
    table = Table(
        title="contio results",
        caption=(
            "ops/s: mean ± 95% confidence half-width (Student t over repetitions).\n"
            f"{LATENCY_AGGREGATION}."
        ),
        caption_justify="left",
    )
    for name in ("target", "workload", "threads"):
        table.add_column(name, no_wrap=True)
    for name in ("ops/s mean ± 95% CI", "±%", "p95 µs", "p99 µs", "reps"):
        table.add_column(name, justify="right", no_wrap=True)
    for s in summaries:
        ci = s.throughput
        half = "" if math.isnan(ci.half_width) else f" ± {_number(ci.half_width)}"
        relative = "–" if math.isnan(ci.half_width) else f"{100 * ci.relative_half_width:.1f}%"
        table.add_row(
            s.target,
            s.workload,
            str(s.threads),
            _number(ci.mean) + half,
            relative,
            _number(s.p95_latency_us),
            _number(s.p99_latency_us),
            str(s.repetitions),
        )
    return table
