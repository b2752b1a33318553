"""Degradation against standalone, and Jain's fairness index for mixes of applications.

Paper 003 (docs/papers.md) runs two applications side by side and compares each with its
standalone (homogeneous) throughput: Cassandra drops from 60K to 50K ops/s ("around 16%"),
MySQL from 18K to 9K TpmC ("around 50%") — an unfair mix. Degradation is 1 − mixed /
standalone, with the Fieller interval of `contio.stats.relative`.

Fairness is Jain's index (Jain, Chiu and Hawe, DEC-TR-301, 1984) over each
application's throughput normalised by its standalone throughput:

    J(x₁ … xₙ) = (Σ xᵢ)² / (n · Σ xᵢ²),   1/n ≤ J ≤ 1,

1 when every application keeps the same fraction of its standalone throughput, 1/n
when one keeps everything. Normalising first is what makes applications with
different units (ops/s against TpmC) comparable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from contio.errors import StatisticsInputError
from contio.stats.relative import RelativeDifference, relative_difference


@dataclass(frozen=True)
class Degradation:
    """The fraction of its standalone throughput an application loses in a mix (0.5 = 50%).

    `high` is at most 1 (all of it); `low` is −inf when the standalone throughput is not
    distinguishable from 0 (`relative.note` says so).
    """

    application: str
    fraction: float
    low: float
    high: float
    confidence: float
    p: float
    """Two-sided Welch p-value of "no degradation"."""
    relative: RelativeDifference
    """The underlying mixed-against-standalone relative difference."""

    @property
    def retained(self) -> float:
        """mixed / standalone: the normalised throughput that enters Jain's index."""
        return 1 - self.fraction


def degradation(
    mixed: Sequence[float],
    standalone: Sequence[float],
    application: str = "application",
    confidence: float = 0.95,
) -> Degradation:
    """1 − mean(mixed) / mean(standalone), with its interval (repetitions of each)."""
    rel = relative_difference(
        mixed, standalone, f"{application} in the mix", f"{application} alone", confidence
    )
    return Degradation(
        application=application,
        fraction=-rel.estimate,
        low=-rel.high,
        high=-rel.low,
        confidence=confidence,
        p=rel.p,
        relative=rel,
    )


def jain_index(values: Sequence[float]) -> float:
    """Jain's fairness index of non-negative allocations (1 = perfectly fair)."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or len(x) == 0:
        raise StatisticsInputError("values", "needs at least one allocation")
    if np.any(x < 0) or not np.all(np.isfinite(x)):
        raise StatisticsInputError("values", "allocations must be finite and >= 0")
    squares = float(np.sum(x**2))
    if squares == 0:
        raise StatisticsInputError("values", "all allocations are 0: fairness is undefined")
    return float(np.sum(x) ** 2 / (len(x) * squares))


@dataclass(frozen=True)
class MixFairness:
    """Every application's degradation in one mix, and Jain's index over what each retained."""

    degradations: tuple[Degradation, ...]
    jain_index: float

    @property
    def worst(self) -> Degradation:
        """The application that lost the largest fraction."""
        return max(self.degradations, key=lambda d: d.fraction)


def fairness_of(degradations: Sequence[Degradation]) -> MixFairness:
    """Jain's index over what each application of a mix retained (a gain counts as kept,
    a loss of everything as 0); `StatisticsInputError` with fewer than two, or when
    every application lost everything."""
    if len(degradations) < 2:
        raise StatisticsInputError("applications", "a mix needs at least two applications")
    retained = [max(d.retained, 0.0) for d in degradations]
    return MixFairness(tuple(degradations), jain_index(retained))


def mix_fairness(
    applications: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    confidence: float = 0.95,
) -> MixFairness:
    """Fairness of a mix: `applications` maps a name to (mixed, standalone) repetitions."""
    if len(applications) < 2:
        raise StatisticsInputError("applications", "a mix needs at least two applications")
    return fairness_of(
        [
            degradation(mixed, alone, name, confidence)
            for name, (mixed, alone) in applications.items()
        ]
    )
