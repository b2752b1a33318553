"""Latency percentiles over all operation types of one phase.

The engine reports percentiles per operation type. For one number per phase,
contio merges the per-type HdrHistograms (exact to their 3 significant digits)
and reads the percentiles from the merged histogram. A document without
histograms falls back to the largest per-type percentile, an upper bound, and
says so in `source`.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass

from hdrh.histogram import HdrHistogram

from contio.engine.result import EngineResult

MERGED = "merged-histograms"
# Timed by the engine as YCSB does, but not operations of the workload.
HOUSEKEEPING = frozenset({"INIT", "CLEANUP", "VERIFY"})
UPPER_BOUND = "max-over-operation-types"

# Wide enough for any latency the engine records (it tracks up to 60 s in µs).
HISTOGRAM_RANGE = (1, 3_600_000_000, 3)
"""Lowest and highest µs and significant digits of the histograms contio merges into."""


@dataclass(frozen=True)
class PhaseLatency:
    """Percentiles (µs) of every operation of a phase, keyed like `p95`."""

    percentiles: dict[str, float]
    source: str


def decode_histogram(encoded: str) -> HdrHistogram | None:
    """An engine histogram (V2 compressed, base64); None when it does not decode."""
    try:
        base64.b64decode(encoded, validate=True)
        return HdrHistogram.decode(encoded)
    except (binascii.Error, ValueError, TypeError, IndexError, OSError):
        return None


def phase_latency(result: EngineResult, percentiles: Sequence[float] = (95, 99)) -> PhaseLatency:
    """Percentiles over all operation types of `result`."""
    keys = [f"p{p:g}" for p in percentiles]
    stats = [s for name, s in result.operations_by_type.items() if name not in HOUSEKEEPING]
    if not stats:
        return PhaseLatency({k: float("nan") for k in keys}, MERGED)
    merged = HdrHistogram(*HISTOGRAM_RANGE)
    for op in stats:
        histogram = decode_histogram(op.histogram) if op.histogram else None
        if histogram is None:
            return _upper_bound(result, percentiles, keys)
        merged.add(histogram)
    values = {
        k: float(merged.get_value_at_percentile(p)) for k, p in zip(keys, percentiles, strict=True)
    }
    return PhaseLatency(values, MERGED)


def _upper_bound(
    result: EngineResult, percentiles: Sequence[float], keys: list[str]
) -> PhaseLatency:
    values: dict[str, float] = {}
    for key, p in zip(keys, percentiles, strict=True):
        per_type = [
            op.latency_us.model_dump().get(f"p{p:g}")
            for name, op in result.operations_by_type.items()
            if name not in HOUSEKEEPING
        ]
        known = [v for v in per_type if v is not None]
        values[key] = max(known) if known else float("nan")
    return PhaseLatency(values, UPPER_BOUND)
