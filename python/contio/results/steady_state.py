"""What a run phase measured after its warm-up: request and byte rates, latency percentiles.

`warmup_seconds` leaves the first whole seconds of the engine's per-second time series
out of every statistic, the same seconds `contio.run.stopping.steady_throughput` leaves out
of ops/s: a rate is the count after the warm-up ÷ (runtime − warm-up). A phase shorter
than warm-up + 1 s, or without a time series, is taken whole (as ops/s is).

- File workloads (`io` object): reads/s and writes/s from the per-second `READ` and
  `WRITE` counts; MiB/s = those counts × the job's `block_size` (every request of a
  sysbench or fio run is one block: the engine's `bytes_read` is `READ` × `block_size`).
- Latency: the engine records one HDR histogram per operation type for the whole
  phase, and per second only the count and p50/p95/p99 (`docs/engine-interface.md`).
  A histogram cannot be split by time, so p95/p99 after the warm-up come from the
  exact whole-phase histograms (all types merged) minus an estimate of the warm-up
  seconds: each (second, type) of the warm-up has its exact count, spread as a
  log-normal through its p50 and p95 (below p95) and through its p95 and p99 (above),
  which passes through all three of its percentiles. Only the warm-up part is
  estimated, so the error shrinks with the warm-up's share of the operations. Where
  the histograms are missing, the steady seconds' own distributions, modelled the
  same way, are mixed instead. `latency_source` names the method
  (`merged-histograms` when nothing is left out). Exact values would need per-second
  histograms from the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from hdrh.histogram import HdrHistogram
from scipy import special

from contio.engine.result import EngineResult
from contio.results.latency import (
    HISTOGRAM_RANGE,
    HOUSEKEEPING,
    PhaseLatency,
    decode_histogram,
    phase_latency,
)

MIB = 1024 * 1024
HISTOGRAM_MINUS_WARMUP = "merged-histograms minus warm-up seconds (estimated)"
PER_SECOND_MIXTURE = "per-second percentiles after warm-up (estimated)"
Z = (0.0, float(special.ndtri(0.95)), float(special.ndtri(0.99)))
"""Standard normal quantiles of the per-second p50, p95, p99."""
TIE = 1e-6
"""Log-latency spread given to two equal percentiles (all that mass at one value)."""


@dataclass(frozen=True)
class SteadyWindow:
    """The seconds of a phase's time series that count, and their length."""

    entries: list[dict]
    seconds: float
    warmup_excluded_s: float


def steady_window(result: EngineResult, warmup_seconds: float) -> SteadyWindow | None:
    """The time series after `warmup_seconds`; None when the phase is taken whole."""
    runtime_s = result.runtime_ms / 1000
    skip = int(warmup_seconds)
    if skip <= 0 or not result.timeseries or runtime_s < skip + 1:
        return None
    entries = [e for e in result.timeseries if int(e.get("t", 0)) > skip]
    return SteadyWindow(entries, runtime_s - skip, float(skip))


def type_count(entries: Iterable[dict], names: Iterable[str]) -> int:
    """Operations of the given types completed in `entries` (per-second `by_type` counts)."""
    wanted = set(names)
    return sum(
        int(stats.get("count", 0))
        for entry in entries
        for name, stats in (entry.get("by_type") or {}).items()
        if name in wanted
    )


def steady_io_rates(result: EngineResult, warmup_seconds: float) -> dict[str, float]:
    """reads/s, writes/s, IOPS, read and written MiB/s of a file workload ({} for YCSB)."""
    io = result.io
    if not io:
        return {}
    window = steady_window(result, warmup_seconds)
    if window is None:
        reads, writes = float(io.get("reads_per_sec", 0.0)), float(io.get("writes_per_sec", 0.0))
        return {
            "reads_per_sec": reads,
            "writes_per_sec": writes,
            "iops": reads + writes,
            "read_mib_per_sec": float(io.get("read_mib_per_sec", 0.0)),
            "written_mib_per_sec": float(io.get("written_mib_per_sec", 0.0)),
        }
    block = float(io.get("block_size", 0))
    reads = type_count(window.entries, ["READ"]) / window.seconds
    writes = type_count(window.entries, ["WRITE"]) / window.seconds
    return {
        "reads_per_sec": reads,
        "writes_per_sec": writes,
        "iops": reads + writes,
        "read_mib_per_sec": reads * block / MIB,
        "written_mib_per_sec": writes * block / MIB,
    }


def _log(latency_us: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(latency_us, 0.0) + 1.0)  # +1: a 0 µs latency stays finite


@dataclass(frozen=True)
class _Second:
    """One (second, operation type): its count and log p50, p95, p99."""

    count: int
    logs: tuple[float, float, float]

    def cdf(self, grid: np.ndarray) -> np.ndarray:
        """Share of the second's operations at or below each log latency of `grid`:
        log-normal through p50 and p95 below p95, through p95 and p99 above it."""
        l50, l95, l99 = self.logs
        low = max(l95 - l50, TIE) / Z[1]
        high = max(l99 - l95, TIE) / (Z[2] - Z[1])
        z = np.where(grid <= l95, (grid - l50) / low, Z[1] + (grid - l95) / high)
        return special.ndtr(z)


def _seconds(entries: Iterable[dict]) -> list[_Second]:
    """Every (second, type) of `entries` with measured operations."""
    found = []
    for entry in entries:
        for name, stats in (entry.get("by_type") or {}).items():
            count = int(stats.get("count", 0))
            if name in HOUSEKEEPING or count <= 0:
                continue
            try:
                values = [float(stats[k]) for k in ("p50", "p95", "p99")]
            except (KeyError, TypeError, ValueError):
                continue
            l50, l95, l99 = (float(v) for v in _log(np.maximum.accumulate(np.asarray(values))))
            found.append(_Second(count, (l50, l95, l99)))
    return found


def _estimated_counts(seconds: list[_Second], grid: np.ndarray) -> np.ndarray:
    """Operations at or below each log latency of `grid`, summed over `seconds`."""
    counts = np.zeros(len(grid))
    for second in seconds:
        counts += second.count * second.cdf(grid)
    return counts


def _quantile(grid: np.ndarray, cumulative: np.ndarray, wanted: float, step: bool = False) -> float:
    """The latency (µs) where the `cumulative` count reaches `wanted`: linear between grid
    points, or (`step`, a histogram's buckets) the first grid point that reaches it, as
    HdrHistogram reports a percentile by its bucket's highest value."""
    i = int(np.searchsorted(cumulative, wanted - 1e-9 * max(wanted, 1.0), side="left"))
    if i == 0:
        x = grid[0]
    elif i >= len(grid):
        x = grid[-1]
    elif step:
        x = grid[i]
    else:
        below, above = cumulative[i - 1], cumulative[i]
        fraction = (wanted - below) / (above - below) if above > below else 1.0
        x = grid[i - 1] + fraction * (grid[i] - grid[i - 1])
    return float(round(np.exp(x) - 1.0, 6))


def mixture_percentiles(
    entries: Sequence[dict], percentiles: Sequence[float]
) -> dict[str, float] | None:
    """Percentiles of all operations in `entries`, from each second's p50/p95/p99 alone.

    None when no second has a measured operation.
    """
    seconds = _seconds(entries)
    if not seconds:
        return None
    logs = np.asarray([second.logs for second in seconds])
    grid = np.linspace(logs.min() - 1.0, logs.max() + 1.0, 4000)
    cumulative = _estimated_counts(seconds, grid)
    total = sum(second.count for second in seconds)
    return {f"p{p:g}": _quantile(grid, cumulative, total * p / 100) for p in percentiles}


def _merged(result: EngineResult) -> HdrHistogram | None:
    merged = HdrHistogram(*HISTOGRAM_RANGE)
    for name, op in result.operations_by_type.items():
        if name in HOUSEKEEPING:
            continue
        histogram = decode_histogram(op.histogram) if op.histogram else None
        if histogram is None:
            return None
        merged.add(histogram)
    return merged


def histogram_minus_seconds(
    merged: HdrHistogram, removed: Sequence[dict], percentiles: Sequence[float]
) -> dict[str, float] | None:
    """Percentiles of `merged` without the operations of the `removed` seconds (counts
    exact, their latencies estimated from each second's percentiles). None when
    nothing is left."""
    values, counts = [], []
    for item in merged.get_recorded_iterator():
        values.append(item.value_iterated_to)
        counts.append(item.total_count_to_this_value)
    grid = _log(np.asarray(values, dtype=float))
    seconds = _seconds(removed)
    whole = np.asarray(counts, dtype=float)
    left = whole - _estimated_counts(seconds, grid)
    left = np.maximum.accumulate(np.clip(left, 0.0, None))  # a count never falls
    total = whole[-1] - sum(second.count for second in seconds)
    if total <= 0:
        return None
    return {
        f"p{p:g}": _quantile(grid, np.minimum(left, total), total * p / 100, step=True)
        for p in percentiles
    }


def steady_latency(
    result: EngineResult, warmup_seconds: float, percentiles: Sequence[float] = (95, 99)
) -> PhaseLatency:
    """p95/p99 over all operation types after the warm-up (see the module doc)."""
    window = steady_window(result, warmup_seconds)
    if window is None:
        return phase_latency(result, percentiles)
    merged = _merged(result)
    if merged is not None and merged.get_total_count() > 0:
        skip = window.warmup_excluded_s
        warmup = [e for e in result.timeseries if int(e.get("t", 0)) <= skip]
        values = histogram_minus_seconds(merged, warmup, percentiles)
        source = HISTOGRAM_MINUS_WARMUP
    else:
        values = mixture_percentiles(window.entries, percentiles)
        source = PER_SECOND_MIXTURE
    if values is None:
        values = {f"p{p:g}": float("nan") for p in percentiles}
    return PhaseLatency(values, source)


@dataclass(frozen=True)
class SteadyThroughput:
    """Ops/s of one phase without its warm-up."""

    ops_per_sec: float
    warmup_excluded_s: float
    """Seconds actually left out (0 when the phase was too short to leave any out)."""


def steady_throughput(result: EngineResult, warmup_seconds: float) -> SteadyThroughput:
    """The phase's ops/s after `warmup_seconds` (whole seconds of the time series)."""
    runtime_s = result.runtime_ms / 1000
    skip = int(warmup_seconds)
    if skip <= 0 or not result.timeseries or runtime_s < skip + 1:
        return SteadyThroughput(result.throughput_ops_per_sec, 0.0)
    operations = sum(int(entry.get("ops", 0)) for entry in result.timeseries if entry["t"] > skip)
    return SteadyThroughput(operations / (runtime_s - skip), float(skip))
