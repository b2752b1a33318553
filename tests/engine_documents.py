"""Result documents shaped as docs/engine-interface.md specifies, for tests without the engine.

The histograms are real HdrHistograms encoded with the `hdrh` library, in the V2
compressed base64 form the engine writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from hdrh.histogram import HdrHistogram


def histogram_of(latencies_us: Iterable[int]) -> HdrHistogram:
    histogram = HdrHistogram(1, 60_000_000, 3)
    for value in latencies_us:
        histogram.record_value(value)
    return histogram


def operation(latencies_us: list[int], with_histogram: bool = True) -> dict[str, Any]:
    h = histogram_of(latencies_us)
    return {
        "count": len(latencies_us),
        "returns": {"OK": len(latencies_us)},
        "latency_us": {
            "min": h.get_min_value(),
            "mean": h.get_mean_value(),
            "max": h.get_max_value(),
            "p50": h.get_value_at_percentile(50),
            "p95": h.get_value_at_percentile(95),
            "p99": h.get_value_at_percentile(99),
            "p999": h.get_value_at_percentile(99.9),
        },
        **({"histogram": h.encode().decode()} if with_histogram else {}),
    }


def document(
    by_type: dict[str, dict[str, Any]],
    *,
    phase: str = "run",
    threads: int = 4,
    throughput: float = 9771.3,
    status: str = "ok",
) -> dict[str, Any]:
    ops = sum(t["count"] for t in by_type.values())
    return {
        "schema": "contio.engine.result/1",
        "engine_version": "0.1.0",
        "kind": "ycsb",
        "phase": phase,
        "target": "lsm",
        "target_description": {"engine": "test"},
        "properties": {"recordcount": "1000"},
        "threads": threads,
        "target_ops_per_sec": 0,
        "status": status,
        "error": None if status == "ok" else "stopped",
        "started_at": "2026-11-22T22:30:00Z",
        "runtime_ms": 10234.5,
        "operations": ops,
        "throughput_ops_per_sec": throughput,
        "operations_by_type": by_type,
        "intended_by_type": None,
        "timeseries": [{"t": 1, "ops": ops, "by_type": {}}],
        "a_field_from_a_newer_engine": True,
    }


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc)
