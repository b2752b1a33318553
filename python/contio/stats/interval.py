"""Mean, standard deviation, Student t confidence interval over repetitions.

The interval is the textbook one for a mean of n independent repetitions with
unknown variance: mean ± t(1 − α/2, n − 1) · s / √n, with s the sample standard
deviation (n − 1 in the denominator). The quantile comes from scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats


@dataclass(frozen=True)
class ConfidenceInterval:
    """A two-sided confidence interval for a mean."""

    mean: float
    half_width: float
    """NaN when there are fewer than two values (no spread to estimate)."""
    confidence: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @property
    def relative_half_width(self) -> float:
        """Half-width as a fraction of the mean (0.02 = ±2%)."""
        return self.half_width / abs(self.mean) if self.mean else math.nan


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; NaN for no values."""
    return float(np.mean(values)) if len(values) else math.nan


def stdev(values: Sequence[float]) -> float:
    """Sample standard deviation (n − 1 denominator); NaN for fewer than two values."""
    return float(np.std(values, ddof=1)) if len(values) >= 2 else math.nan


def confidence_interval(values: Sequence[float], confidence: float = 0.95) -> ConfidenceInterval:
    """Student t confidence interval of the mean of `values`."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence}")
    n = len(values)
    if n < 2:
        return ConfidenceInterval(mean(values), math.nan, confidence, n)
    quantile = float(scipy_stats.t.ppf((1 + confidence) / 2, df=n - 1))
    half_width = quantile * stdev(values) / math.sqrt(n)
    return ConfidenceInterval(mean(values), half_width, confidence, n)
