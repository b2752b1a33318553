"""Throughput valley: throughput that falls as containers are added, then climbs again.

Paper 003 (docs/papers.md), Fig. 6 and 7, finds it for read-intensive containers:
while every container's data fit in the page cache, reads are served from memory; past
three containers they no longer fit, throughput falls (the valley at four), and then
grows again towards the disk's rated bandwidth as more containers keep the disk busy.

The criterion, over confidence intervals (`contio.stats.relative`):

- a drop: the first level k whose mean is significantly below the highest mean of
  the levels before it (the peak) — the interval of mean(k) / mean(peak) − 1 lies
  below zero — by at least `min_drop` as a point estimate;
- the bottom: the level with the lowest mean from k on;
- a recovery: the first level after the bottom that is significantly above it by at
  least `min_drop`.

A drop without a recovery is still reported (`recovered` False): throughput fell
and stayed down within the levels measured. With one repetition per level the means
are compared directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contio.errors import StatisticsInputError
from contio.stats.relative import RelativeDifference
from contio.stats.scaling import ScalingSeries, bounds, series


@dataclass(frozen=True)
class Valley:
    """A significant fall of throughput from a peak, and where it climbs again."""

    peak_level: float
    bottom_level: float
    depth: RelativeDifference
    """The bottom against the peak (negative: −0.4 = 40% below the peak)."""
    recovery_level: float | None
    rise: RelativeDifference | None
    """The recovery level against the bottom."""
    min_drop: float
    confidence: float

    @property
    def recovered(self) -> bool:
        return self.recovery_level is not None


def _is_drop(diff: RelativeDifference, min_drop: float) -> bool:
    return bounds(diff)[1] < 0 and diff.estimate <= -min_drop


def _is_rise(diff: RelativeDifference, min_drop: float) -> bool:
    return bounds(diff)[0] > 0 and diff.estimate >= min_drop


def _first_drop(data: ScalingSeries, min_drop: float, confidence: float) -> tuple[int, int] | None:
    means = data.means
    for k in range(1, len(means)):
        peak = max(range(k), key=means.__getitem__)
        if _is_drop(data.compare(k, peak, confidence), min_drop):
            return peak, k
    return None


def find_valley(
    levels: Sequence[float],
    samples: Sequence[Sequence[float]],
    min_drop: float = 0.10,
    confidence: float = 0.95,
) -> Valley | None:
    """The first throughput valley in a scaling series, or None when throughput never drops."""
    if not 0 <= min_drop < 1:
        raise StatisticsInputError("min_drop", f"must be in [0, 1), not {min_drop}")
    data = series(levels, samples)
    found = _first_drop(data, min_drop, confidence)
    if found is None:
        return None
    peak, start = found
    means = data.means
    bottom = min(range(start, len(means)), key=means.__getitem__)
    recovery: int | None = None
    rise: RelativeDifference | None = None
    for j in range(bottom + 1, len(means)):
        candidate = data.compare(j, bottom, confidence)
        if _is_rise(candidate, min_drop):
            recovery, rise = j, candidate
            break
    return Valley(
        peak_level=data.levels[peak],
        bottom_level=data.levels[bottom],
        depth=data.compare(bottom, peak, confidence),
        recovery_level=None if recovery is None else data.levels[recovery],
        rise=rise,
        min_drop=min_drop,
        confidence=confidence,
    )
