"""Per-cell statistics over repetitions: the rows of summary.csv and of the final table.

Throughput: mean ± 95% confidence half-width (Student t over repetitions).
Latency: p95 and p99 are taken per repetition over all operation types (merged
histograms, see `contio.latency`) and averaged over repetitions.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from contio.results import PhaseRecord
from contio.stats import ConfidenceInterval, confidence_interval, mean, stdev

LATENCY_AGGREGATION = (
    "p95/p99: per repetition over all operation types (merged HDR histograms), "
    "mean over repetitions"
)


@dataclass(frozen=True)
class CellSummary:
    """Statistics of one cell's run phase over its completed repetitions."""

    target: str
    workload: str
    threads: int
    throughput: ConfidenceInterval
    throughput_stdev: float
    p95_latency_us: float
    p99_latency_us: float
    failed_operations: int

    @property
    def repetitions(self) -> int:
        return self.throughput.n

    def row(self) -> dict[str, Any]:
        """A flat row for summary.csv."""
        return {
            "target": self.target,
            "workload": self.workload,
            "threads": self.threads,
            "repetitions": self.repetitions,
            "throughput_ops_per_sec_mean": self.throughput.mean,
            "throughput_ops_per_sec_stdev": self.throughput_stdev,
            "throughput_ci95_half_width": self.throughput.half_width,
            "throughput_ci95_low": self.throughput.low,
            "throughput_ci95_high": self.throughput.high,
            "p95_latency_us_mean": self.p95_latency_us,
            "p99_latency_us_mean": self.p99_latency_us,
            "failed_operations": self.failed_operations,
        }


def summarize(records: Iterable[PhaseRecord]) -> list[CellSummary]:
    """One summary per cell, from the completed (`ok`) run phases, in first-seen order."""
    cells: dict[tuple[str, str, int], list[PhaseRecord]] = {}
    for record in records:
        if record.phase == "run" and record.status == "ok":
            cells.setdefault((record.target, record.workload, record.threads), []).append(record)
    summaries = []
    for (target, workload, threads), reps in cells.items():
        ops = [r.throughput_ops_per_sec for r in reps]
        summaries.append(
            CellSummary(
                target=target,
                workload=workload,
                threads=threads,
                throughput=confidence_interval(ops, 0.95),
                throughput_stdev=stdev(ops),
                p95_latency_us=mean([r.p95_latency_us for r in reps]),
                p99_latency_us=mean([r.p99_latency_us for r in reps]),
                failed_operations=sum(r.failed_operations for r in reps),
            )
        )
    return summaries
