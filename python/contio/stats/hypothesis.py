"""Hypothesis tests behind contio's verdicts: one-sided t-tests (Welch, paired, one
sample), TOST for equivalence within a ratio band, and the repetitions a test needs.

Differences are ratio-scaled where a claim is relative: "x is more than r times y" is
the one-sided test of x − r·y > 0, and "x is within ±m of y" the two one-sided tests
(TOST) of x − (1−m)·y > 0 and x − (1+m)·y < 0. scipy does the t-tests; what is added
here is the case scipy leaves undefined: samples without any spread, where the
difference is known exactly (p 0 or 1; NaN when it is exactly 0). statsmodels is the
oracle in tests/stats/test_hypothesis.py.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as scipy_stats

POWER = 0.8
"""The power `repetitions_needed` sizes for."""


def _exact(gap: float, alternative: str) -> float:
    """p of a difference without spread: it is known exactly (NaN when it is 0)."""
    if gap == 0:
        return math.nan
    return 0.0 if (gap > 0) == (alternative == "greater") else 1.0


def one_sided_p(x: np.ndarray, y: np.ndarray, paired: bool, alternative: str) -> float:
    """p of x − y in the `alternative` direction ("greater" or "less"): paired t-test or
    Welch's; exact when neither side has any spread."""
    if paired:
        d = x - y
        if np.all(d == d[0]):
            return _exact(float(d[0]), alternative)
        return float(scipy_stats.ttest_rel(x, y, alternative=alternative).pvalue)
    if np.var(x) == 0 and np.var(y) == 0:
        return _exact(float(x.mean() - y.mean()), alternative)
    return float(scipy_stats.ttest_ind(x, y, equal_var=False, alternative=alternative).pvalue)


def one_sample_p(values: np.ndarray, against: float, alternative: str) -> float:
    """p of mean(values) − `against` in the `alternative` direction (one-sample t-test)."""
    if np.all(values == values[0]):
        return _exact(float(values[0] - against), alternative)
    return float(scipy_stats.ttest_1samp(values, against, alternative=alternative).pvalue)


def tost(x: np.ndarray, y: np.ndarray, margin: float, paired: bool) -> tuple[float, float]:
    """(p that x lies within (1 ± `margin`)·y, p that it lies outside): the larger p of
    the two one-sided tests against the band's edges, and the smaller p of the two
    tests that x is beyond one of them."""
    low, high = 1 - margin, 1 + margin
    inside = max(
        one_sided_p(x, low * y, paired, "greater"), one_sided_p(x, high * y, paired, "less")
    )
    outside = min(
        one_sided_p(x, low * y, paired, "less"), one_sided_p(x, high * y, paired, "greater")
    )
    return inside, outside


def repetitions_needed(spread: float, distance: float, alpha: float) -> int | None:
    """Repetitions for a one-sided test at `alpha` to detect `distance` with `POWER`,
    one repetition's standard deviation being `spread` (same unit); normal approximation,
    at least 2. None when it cannot be told (no finite spread, no distance)."""
    if not math.isfinite(spread) or distance <= 0:
        return None
    z = float(scipy_stats.norm.ppf(1 - alpha) + scipy_stats.norm.ppf(POWER))
    return max(2, math.ceil((z * spread / distance) ** 2))


def difference_spread(x: np.ndarray, y: np.ndarray, ratio: float, paired: bool) -> float:
    """Standard deviation of one repetition's x − ratio·y, relative to mean(y)."""
    scale = float(y.mean())
    if paired:
        return float(np.std(x - ratio * y, ddof=1)) / scale
    return math.sqrt(float(np.var(x, ddof=1)) + ratio**2 * float(np.var(y, ddof=1))) / scale
