"""Saturation point: the count of containers (or threads) past which throughput stops growing.

Paper 003 (docs/papers.md), Fig. 3 and 5, adds containers until cumulative throughput
stops increasing — MySQL keeps growing as CPU use grows, Cassandra writes flatten at six
containers when the CPU saturates. The criterion here, stated over confidence intervals:

    The saturation point is the smallest level k such that no larger level j is
    shown to add at least `min_gain` over k, i.e. for every j > k the lower bound of
    the interval of mean(j) / mean(k) − 1 (Fieller, `contio.stats.relative`) is
    below `min_gain`.

So a level counts as saturated only when every larger level fails to beat it by
`min_gain` at the confidence asked. `confirmed` is the stronger statement that
every larger level's upper bound is below `min_gain` too — the data show the extra
containers add less than `min_gain`, rather than failing to show that they add more.
When no level below the largest qualifies, throughput was still growing at the
largest level measured and the point is None. With one repetition per level, means
are compared directly (no interval), and `has_intervals` is False.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contio.errors import StatisticsInputError
from contio.stats.relative import RelativeDifference
from contio.stats.scaling import bounds, series


@dataclass(frozen=True)
class Saturation:
    """Where throughput stopped growing, and the evidence."""

    point: float | None
    """The saturation level, None when throughput still grew at the largest level."""
    peak_level: float
    """The level with the highest mean throughput."""
    confirmed: bool
    """Every larger level's gain has its upper bound below `min_gain` as well."""
    gains: tuple[RelativeDifference, ...]
    """Each larger level against the saturation point (empty when there is none)."""
    min_gain: float
    confidence: float
    has_intervals: bool


def saturation_point(
    levels: Sequence[float],
    samples: Sequence[Sequence[float]],
    min_gain: float = 0.05,
    confidence: float = 0.95,
) -> Saturation:
    """Find the saturation point of throughput repetitions `samples[i]` at `levels[i]`."""
    if not 0 <= min_gain < 1:
        raise StatisticsInputError("min_gain", f"must be in [0, 1), not {min_gain}")
    data = series(levels, samples)
    means = data.means
    peak = data.levels[max(range(len(means)), key=means.__getitem__)]
    has_intervals = all(len(s) >= 2 for s in data.samples)
    for k in range(len(data.levels) - 1):
        gains = tuple(data.compare(j, k, confidence) for j in range(k + 1, len(data.levels)))
        if all(bounds(g)[0] < min_gain for g in gains):
            confirmed = all(bounds(g)[1] < min_gain for g in gains)
            return Saturation(
                data.levels[k], peak, confirmed, gains, min_gain, confidence, has_intervals
            )
    return Saturation(None, peak, False, (), min_gain, confidence, has_intervals)
