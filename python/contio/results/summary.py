"""Per-cell statistics over repetitions: the rows of summary.csv and of the results table.

Throughput: per repetition, the steady ops/s (warm-up left out) summed over the cell's
containers; over repetitions, mean ± 95% confidence half-width (Student t). Latency:
p95 and p99 per repetition and container over all operation types (merged
histograms, warm-up left out: see `contio.results.steady_state`), averaged. Skipped cells keep their reason.
Mix cells carry each member's degradation against standalone and Jain's index
(`contio.stats.mix_comparison`, the numbers the report states).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contio.results.index import ResultsIndex
from contio.results.repetitions import complete as counted_repetitions
from contio.stats import ConfidenceInterval, confidence_interval, mean, stdev
from contio.stats.mix_comparison import MixComparison, compare_mixes

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
    mix: MixComparison | None = None
    """A mix cell's members against standalone, with Jain's index (None otherwise)."""

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


def _mix_columns(mix: MixComparison | None, members: int) -> dict[str, Any]:
    """summary.csv's mix columns: Jain's index, then per member its name, ops/s in the mix
    and alone, degradation (1 − mixed/standalone) with its 95% interval, p and note."""
    row: dict[str, Any] = {"mix_jain_index": ""}
    if mix is not None and mix.fairness is not None:
        row["mix_jain_index"] = mix.fairness.jain_index
    found = list(mix.members) if mix is not None else []
    for i in range(members):
        member = found[i] if i < len(found) else None
        lost = member.degradation if member else None
        prefix = f"mix_member{i + 1}"
        row |= {
            prefix: member.name if member else "",
            f"{prefix}_ops_per_sec_mean": member.mixed_mean if member else "",
            f"{prefix}_standalone_ops_per_sec_mean": member.standalone_mean if member else "",
            f"{prefix}_degradation": lost.fraction if lost else "",
            f"{prefix}_degradation_ci95_low": lost.low if lost else "",
            f"{prefix}_degradation_ci95_high": lost.high if lost else "",
            f"{prefix}_degradation_p": lost.p if lost else "",
            f"{prefix}_degradation_note": lost.relative.note if lost else "",
        }
    return row


def summary_rows(summaries: list[CellSummary]) -> list[dict[str, Any]]:
    """The rows of summary.csv, all with the same columns: mix columns appear when the
    experiment has a mix compared with standalone, as many members as its largest."""
    members = max((len(s.mix.members) for s in summaries if s.mix is not None), default=0)
    if not members:
        return [s.row() for s in summaries]
    return [s.row() | _mix_columns(s.mix, members) for s in summaries]


def summarize(index: ResultsIndex) -> list[CellSummary]:
    """One summary per cell of the index, in cell order (cells not yet run included)."""
    phases = index.phases("run")
    by_cell: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in phases:
        by_cell[row["cell_key"]].append(row)
    cells = index.cells()
    mixes = {found.cell_key: found for found in compare_mixes(cells, phases)}
    summaries = []
    for cell in cells:
        containers = int(cell["members"])
        complete = counted_repetitions(by_cell[cell["cell_key"]], containers)
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
                samples=tuple(zip(complete, ops, strict=True)),
                mix=mixes.get(cell["cell_key"]),
            )
        )
    return summaries


def _io_means(reps: list[list[Mapping[str, Any]]]) -> dict[str, float]:
    """Mean over repetitions of the file I/O rates summed over containers ({} for YCSB)."""
    if not reps or any(r["iops"] is None for rows in reps for r in rows):
        return {}
    return {
        name: mean([sum(r[name] for r in rows) for rows in reps])
        for name in ("read_mib_per_sec", "written_mib_per_sec", "iops")
    }


def _empty() -> ConfidenceInterval:
    return ConfidenceInterval(math.nan, math.nan, 0.95, 0)


def _latency_mean(rows: list[Mapping[str, Any]], column: str) -> float:
    """Mean over the phases that completed operations (NULL: none did, so no latency)."""
    return mean([r[column] for r in rows if r[column] is not None])
