"""One row of an experiment's results: one phase of one container in one repetition of
a cell, made from the engine's document (`PhaseRecord.from_result`), the steady-state
figures included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from contio.engine.result import EngineResult
from contio.results.steady_state import steady_io_rates, steady_latency, steady_throughput


@dataclass(frozen=True)
class PhaseRecord:
    """One phase (load or run) of one container in one repetition of one cell.

    Units are in the names. Every rate and percentile of a run phase leaves out the
    warm-up seconds (`steady_ops_per_sec`: `contio.run.stopping`; p95/p99 and the file
    I/O rates: `contio.results.steady_state`); `throughput_ops_per_sec` is the engine's own,
    over the whole phase.
    """

    cell_key: str
    cell_index: int
    session: int
    phase: str
    repetition: int
    container: int
    target: str
    workload: str
    threads: int
    status: str
    operations: int
    failed_operations: int
    runtime_ms: float
    throughput_ops_per_sec: float
    steady_ops_per_sec: float
    warmup_excluded_s: float
    p95_latency_us: float
    p99_latency_us: float
    latency_source: str
    """How p95/p99 span operation types and leave the warm-up out (`contio.results.latency`,
    `contio.results.steady_state`)."""
    started_at: str
    raw_json: str
    """Path of the engine's document, relative to the results folder."""
    reads_per_sec: float | None = None
    """File workloads (sysbench, fio): read requests per second after the warm-up; None
    for YCSB phases."""
    writes_per_sec: float | None = None
    iops: float | None = None
    """Reads and writes per second (fsyncs left out), as fio's IOPS."""
    read_mib_per_sec: float | None = None
    written_mib_per_sec: float | None = None
    io_control: str = ""
    """The block I/O controls applied to the container (JSON: mechanism, values,
    device, notes), empty when it ran in no group."""
    # Means over a phase of its per-second samples (`contio.samplers.phase`; None where
    # nothing was sampled). Host: the same for every container.
    cpu_percent: float | None = None
    """Host CPU utilization, % of all cores."""
    disk_percent: float | None = None
    """Utilization (io_ticks) of the disk holding the data (`disk_device`)."""
    disk_read_bytes_per_sec: float | None = None
    disk_write_bytes_per_sec: float | None = None
    net_rx_bytes_per_sec: float | None = None
    """The host's network interfaces with a device (NICs)."""
    net_tx_bytes_per_sec: float | None = None
    client_cpu_percent: float | None = None
    """This container's engine: CPU (100 = one core), memory, storage bytes it caused."""
    client_memory_bytes: float | None = None
    client_read_bytes_per_sec: float | None = None
    client_write_bytes_per_sec: float | None = None
    client_memory_limit_bytes: float | None = None
    """Its container's memory limit; None without one."""
    client_major_faults_per_sec: float | None = None
    """Page faults that read from disk: a process thrashing at its memory limit."""
    server_cpu_percent: float | None = None
    """This container's database server (docker), as for the client."""
    server_memory_bytes: float | None = None
    server_read_bytes_per_sec: float | None = None
    server_write_bytes_per_sec: float | None = None
    server_memory_limit_bytes: float | None = None
    server_major_faults_per_sec: float | None = None
    disk_device: str = ""
    """The disk of `disk_percent` (`vda`), `busiest` when no disk holds the data."""
    tpmc: float | None = None
    """`tpcc` run phases: New-Order transactions per minute after the warm-up (tpmC, the
    TPC-C throughput metric); None for every other phase."""
    disk_read_ops_per_sec: float | None = None
    """Requests the disk of `disk_percent` completed (host: the same for every container)."""
    disk_write_ops_per_sec: float | None = None
    disk_merged_percent: float | None = None
    """Of the requests the block layer was given for that disk, the % it merged into an
    adjacent one: a sign of sequential I/O."""
    disk_queue_depth: float | None = None
    """That disk's mean number of requests in flight."""
    data_bytes: float | None = None
    """Bytes this container's data occupied on its backend when the phase ended (its
    directory's allocated blocks); None for a Docker volume."""

    @classmethod
    def from_result(
        cls, result: EngineResult, *, warmup_seconds: float = 0.0, **fields: Any
    ) -> PhaseRecord:
        """A record of `result`; `fields` give the cell, repetition, container, paths."""
        phase = fields.pop("phase", result.phase)
        warmup = warmup_seconds if phase == "run" else 0.0
        latency = steady_latency(result, warmup, (95, 99))
        steady = steady_throughput(result, warmup)
        values: dict[str, Any] = dict(
            target=result.target,
            phase=phase,
            threads=result.threads,
            status=result.status,
            operations=result.operations,
            failed_operations=result.failed_operations,
            runtime_ms=result.runtime_ms,
            throughput_ops_per_sec=result.throughput_ops_per_sec,
            steady_ops_per_sec=steady.ops_per_sec,
            warmup_excluded_s=steady.warmup_excluded_s,
            p95_latency_us=_or_nan(latency.percentiles["p95"]),
            p99_latency_us=_or_nan(latency.percentiles["p99"]),
            latency_source=latency.source,
            started_at=result.started_at,
            **steady_io_rates(result, warmup),
            tpmc=steady_tpmc(result, warmup) if result.kind == "tpcc" and phase == "run" else None,
            **fields,
        )
        return cls(**values)


def steady_tpmc(result: EngineResult, warmup_seconds: float) -> float | None:
    """New-Orders per minute after `warmup_seconds` (whole seconds of the time series),
    else the engine's `tpcc.tpmC` over the whole phase."""
    runtime_s = result.runtime_ms / 1000
    skip = int(warmup_seconds)
    if skip > 0 and result.timeseries and runtime_s >= skip + 1:
        new_orders = sum(
            int(entry.get("by_type", {}).get("NEW_ORDER", {}).get("count", 0))
            for entry in result.timeseries
            if entry["t"] > skip
        )
        return new_orders * 60 / (runtime_s - skip)
    whole = (result.tpcc or {}).get("tpmC")
    return float(whole) if isinstance(whole, (int, float)) else None


def _or_nan(value: float | None) -> float:
    """A percentile of a phase that completed no operation (a starved group) is NaN."""
    return math.nan if value is None else value
