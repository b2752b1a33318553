"""Shared input of the scaling analyses: throughput repetitions per level of a count.

A scaling series is one factor that counts something (containers, threads) and, per
level, the repetitions of the cumulative throughput. Levels are sorted ascending.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from contio.errors import StatisticsInputError
from contio.stats.relative import RelativeDifference, relative_difference


@dataclass(frozen=True)
class ScalingSeries:
    """Levels (ascending) and the repetitions measured at each."""

    levels: tuple[float, ...]
    samples: tuple[tuple[float, ...], ...]

    @property
    def means(self) -> list[float]:
        return [float(np.mean(s)) for s in self.samples]

    def compare(self, i: int, j: int, confidence: float) -> RelativeDifference:
        """Level i against level j as a relative difference (i's mean / j's mean − 1)."""
        return relative_difference(
            self.samples[i], self.samples[j], _name(self.levels[i]), _name(self.levels[j]),
            confidence,
        )  # fmt: skip


def _name(level: float) -> str:
    return f"{level:g}"


def series(levels: Sequence[float], samples: Sequence[Sequence[float]]) -> ScalingSeries:
    """Validate and sort a scaling series; each level needs at least one repetition."""
    if len(levels) != len(samples):
        raise StatisticsInputError(
            "samples",
            f"needs one list of repetitions per level ({len(levels)}), got {len(samples)}",
        )
    if len(levels) < 2:
        raise StatisticsInputError("levels", "a scaling analysis needs at least two levels")
    if len(set(levels)) != len(levels):
        raise StatisticsInputError("levels", "levels must be distinct")
    for level, reps in zip(levels, samples, strict=True):
        if len(reps) == 0:
            raise StatisticsInputError("samples", f"level {level:g} has no repetitions")
    order = sorted(range(len(levels)), key=lambda k: levels[k])
    return ScalingSeries(
        tuple(float(levels[k]) for k in order),
        tuple(tuple(float(v) for v in samples[k]) for k in order),
    )


def bounds(diff: RelativeDifference) -> tuple[float, float]:
    """The interval of a difference, or the point estimate when there is no interval.

    With one repetition per level there is no spread to test against; the analyses
    then fall back to comparing means, which the results say (`has_interval`).
    """
    if diff.has_interval:
        return diff.low, diff.high
    return diff.estimate, diff.estimate
