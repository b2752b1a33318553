"""Per-cell statistics over repetitions: the rows of summary.csv and of the results table.

Throughput: per repetition, the steady ops/s (warm-up left out) summed over the cell's
containers; over repetitions, mean ± 95% confidence half-width (Student t). Latency:
p95 and p99 per repetition and container over all operation types (merged
histograms, warm-up left out: see `contio.steady_state`), averaged. Skipped cells keep their reason.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from contio.results_index import ResultsIndex
from contio.stats import ConfidenceInterval, confidence_interval, mean, stdev

LATENCY_AGGREGATION = (
    "p95/p99: per repetition and container over all operation types (merged HDR "
    "histograms; with a warm-up, less its seconds' estimated share), mean over them"
)


@dataclass(frozen=True)
class CellSummary:
    """Statistics of one cell's run phases over its completed repetitions."""

    cell_index: int
    label: str
    levels: dict[str, Any]
    status: str
    reason: str | None
    throughput: ConfidenceInterval
    """Of the cell's aggregate ops/s (sum over containers) per repetition."""
    throughput_stdev: float
    per_container_ops_per_sec: float
    p95_latency_us: float
    p99_latency_us: float
    failed_operations: int
    read_mib_per_sec: float = math.nan
    """File workloads: MiB/s read per repetition (sum over containers), mean; NaN for YCSB."""
    written_mib_per_sec: float = math.nan
    iops: float = math.nan
    """File workloads: reads + writes per second per repetition (sum), mean."""
    samples: tuple[tuple[int, float], ...] = ()
    """(repetition number, aggregate ops/s) of each completed repetition, for pairing."""

    @property
    def file_io(self) -> bool:
        return not math.isnan(self.iops)

    @property
    def repetitions(self) -> int:
        return self.throughput.n

    def row(self) -> dict[str, Any]:
        """A flat row for summary.csv: the factor levels, then the statistics."""
        return {
            "cell": self.cell_index,
            **self.levels,
            "status": self.status,
            "reason": self.reason or "",
            "repetitions": self.repetitions,
            "throughput_ops_per_sec_mean": self.throughput.mean,
            "throughput_ops_per_sec_stdev": self.throughput_stdev,
            "throughput_ci95_half_width": self.throughput.half_width,
            "throughput_ci95_relative": self.throughput.relative_half_width,
            "throughput_ci95_low": self.throughput.low,
            "throughput_ci95_high": self.throughput.high,
            "per_container_ops_per_sec_mean": self.per_container_ops_per_sec,
            "p95_latency_us_mean": self.p95_latency_us,
            "p99_latency_us_mean": self.p99_latency_us,
            "failed_operations": self.failed_operations,
            "read_mib_per_sec_mean": self.read_mib_per_sec,
            "written_mib_per_sec_mean": self.written_mib_per_sec,
            "iops_mean": self.iops,
        }


def summarize(index: ResultsIndex) -> list[CellSummary]:
    """One summary per cell of the index, in cell order (cells not yet run included)."""
    runs: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in index.phases("run"):
        if row["status"] == "ok":
            runs[row["cell_key"]][row["repetition"]].append(row)
    summaries = []
    for cell in index.cells():
        containers = int(cell["members"])
        complete = {
            number: rows
            for number, rows in sorted(runs[cell["cell_key"]].items())
            if len(rows) == containers
        }
        reps = list(complete.values())
        flat = [row for rows in reps for row in rows]
        ops = [sum(r["steady_ops_per_sec"] for r in rows) for rows in reps]
        summaries.append(
            CellSummary(
                cell_index=cell["cell_index"],
                label=cell["label"],
                levels=cell["levels"],
                status=cell["status"],
                reason=cell["reason"],
                throughput=confidence_interval(ops, 0.95) if ops else _empty(),
                throughput_stdev=stdev(ops),
                per_container_ops_per_sec=mean([r["steady_ops_per_sec"] for r in flat]),
                p95_latency_us=_latency_mean(flat, "p95_latency_us"),
                p99_latency_us=_latency_mean(flat, "p99_latency_us"),
                failed_operations=sum(r["failed_operations"] for r in flat),
                **_io_means(reps),
                samples=tuple(zip(complete, ops)),
            )
        )
    return summaries


def _io_means(reps: list[list[dict[str, Any]]]) -> dict[str, float]:
    """Mean over repetitions of the file I/O rates summed over containers ({} for YCSB)."""
    if not reps or any(r["iops"] is None for rows in reps for r in rows):
        return {}
    return {
        name: mean([sum(r[name] for r in rows) for rows in reps])
        for name in ("read_mib_per_sec", "written_mib_per_sec", "iops")
    }


def _empty() -> ConfidenceInterval:
    return ConfidenceInterval(math.nan, math.nan, 0.95, 0)


def _latency_mean(rows: list[dict[str, Any]], column: str) -> float:
    """Mean over the phases that completed operations (NULL: none did, so no latency)."""
    return mean([r[column] for r in rows if r[column] is not None])
