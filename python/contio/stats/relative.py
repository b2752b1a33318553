"""Relative difference of a level against a named baseline, with a Fieller interval.

Paper 000 (docs/papers.md) states its results as "7% better" and "56% better than local
storage": the ratio of two mean throughputs minus one. The interval here is Fieller's for a
ratio of two independent means, in its unequal-variance (Welch) form:

    the set of ratios R for which Welch's t-test of "mean(level) = R · mean(baseline)"
    (the level's repetitions against the baseline's repetitions scaled by R) does not
    reject at 1 − confidence,

restricted to R ≥ 0: the values are throughputs, never negative, so neither is
their ratio, and a level can be at most 100% slower than its baseline.

Why Fieller and not the delta method: the ratio of two means is skewed, and the
delta method's symmetric interval ā/b̄ ± q·se is too narrow on the far side when
the baseline's spread is large or there are few repetitions (the usual case with
3–10 runs). Fieller's construction inverts an exact t-test, so its coverage is the
t-test's, and it agrees with the p-value printed beside it: the interval excludes
"no difference" exactly when Welch's p is below 1 − confidence. With Welch's degrees
of freedom recomputed at each candidate R, the bounds are exactly where
`scipy.stats.ttest_ind(level, R * baseline, equal_var=False).pvalue` equals
1 − confidence, which is how the tests check it. (A delta-method interval on the log
ratio stays positive too, but it does not invert the t-test: in simulations its
verdict contradicted Welch's p in up to 14% of comparisons; docs/statistics.md.)

Two cases say what the data cannot tell, instead of printing impossible bounds:

- the level's mean is not distinguishable from 0 (its own one-sample t-test does not
  reject 0: Fieller's lower bound falls below R = 0): the lower bound is R = 0,
  −100%, and `note` says why;
- the baseline's mean is not distinguishable from 0: no finite R bounds the set (any
  interval for a ratio with guaranteed coverage must be unbounded in such samples;
  Gleser and Hwang, Ann. Statist. 15, 1987): `unbounded` is True, the bounds are
  −100% and +inf, and `note` says why.

Repetitions of the two levels are treated as independent samples (different runs).
`paired_relative_difference` is the matched-pairs form (repetition i of the level
against repetition i of the baseline, as paper 002's paired tests): the set of R for which
the paired t-test of a_i − R·b_i does not reject, in closed form from the quadratic
(ā − R·b̄)² = (q²/n)·(s_a² − 2R·s_ab + R²·s_b²), q the Student t quantile with n − 1
degrees of freedom; its bounds are where `scipy.stats.ttest_rel(level, R * baseline)`
has p = 1 − confidence. Pairing removes what both levels of one repetition share (the
machine's state in that slot), so it is narrower when the pairs are correlated.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special
from scipy import stats as scipy_stats

from contio.errors import StatisticsInputError
from contio.stats.ttest import welch_degrees_of_freedom


@dataclass(frozen=True)
class RelativeDifference:
    """mean(level) / mean(baseline) − 1 with its confidence interval (fractions: 0.07 = 7%).

    The bounds are never below −1 (−100%): a throughput cannot fall by more than all of it.
    """

    level: str
    baseline: str
    estimate: float
    low: float
    """Lower bound, ≥ −1 (NaN without repetitions)."""
    high: float
    """Upper bound (+inf when `unbounded`, NaN without repetitions)."""
    confidence: float
    p: float
    """Two-sided p of "no difference": Welch's t-test, or the paired one (NaN with fewer
    than two values a side)."""
    mean_level: float
    mean_baseline: float
    n_level: int
    n_baseline: int
    method: str = "fieller-welch"
    note: str = ""
    """Why a bound is where it is when the data cannot place it: "<level> is not
    distinguishable from 0" (the lower bound is −100%), "<baseline> is not
    distinguishable from 0" (unbounded). Empty otherwise."""

    @property
    def significant(self) -> bool:
        """Whether the t-test rejects "no difference" at 1 − confidence (the interval
        then excludes 0, as Fieller's inverts that test)."""
        return self.p < 1 - self.confidence

    @property
    def has_interval(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    @property
    def unbounded(self) -> bool:
        """Whether the baseline's mean is not distinguishable from 0 (no upper bound)."""
        return math.isinf(self.high)


def _array(name: str, values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or len(array) == 0:
        raise StatisticsInputError(name, "needs at least one value")
    if not np.all(np.isfinite(array)):
        raise StatisticsInputError(name, "contains NaN or infinite values")
    if np.any(array < 0):
        raise StatisticsInputError(
            name, "contains negative values: relative differences compare measurements >= 0"
        )
    return array


def _checked(
    level: Sequence[float], baseline: Sequence[float], level_name: str, baseline_name: str,
    confidence: float,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    if not 0 < confidence < 1:
        raise StatisticsInputError("confidence", f"must be in (0, 1), not {confidence}")
    x, b = _array(level_name, level), _array(baseline_name, baseline)
    if b.mean() == 0:
        raise StatisticsInputError(baseline_name, "has mean 0: a relative difference needs > 0")
    return x, b


def distinguishable_from_zero(values: np.ndarray, confidence: float) -> bool:
    """Whether the one-sample t-test of mean = 0 rejects at 1 − confidence (values ≥ 0).

    This is where Fieller's set meets R = 0 (for the level) and whether it is bounded
    at all (for the baseline): at R = 0, and as R grows without bound, the Welch (and
    paired) statistic of x − R·b becomes this test of one side.
    """
    mean = float(values.mean())
    if mean == 0:
        return False
    spread = float(values.std(ddof=1))
    if spread == 0:
        return True
    t = mean / (spread / math.sqrt(len(values)))
    return t > float(special.stdtrit(len(values) - 1, (1 + confidence) / 2))


@dataclass(frozen=True)
class _Moments:
    """Mean, sample variance and count of one side (computed once per interval)."""

    mean: float
    var: float
    n: int

    @classmethod
    def of(cls, values: np.ndarray) -> _Moments:
        return cls(float(values.mean()), float(values.var(ddof=1)), len(values))


def _welch_t_for_ratio(x: _Moments, b: _Moments, ratio: float) -> tuple[float, float]:
    """t and df of Welch's test of mean(x) − ratio · mean(b) = 0."""
    vb = b.var * ratio**2
    se = math.sqrt(x.var / x.n + vb / b.n)
    t = (x.mean - ratio * b.mean) / se
    return t, welch_degrees_of_freedom(x.var, x.n, vb, b.n)


def _bound(x: _Moments, b: _Moments, estimate: float, direction: int, alpha: float) -> float:
    """The first ratio from `estimate` outward (direction ±1) where Welch's p reaches alpha."""

    def excess(ratio: float) -> float:
        t, df = _welch_t_for_ratio(x, b, ratio)
        # stdtrit is the Student t quantile (scipy.special), fast enough for root finding.
        return abs(t) - float(special.stdtrit(df, 1 - alpha / 2))

    # First step: twice the delta method's standard error, usually already past the bound.
    rel_var = (x.var / (x.n * x.mean**2) if x.mean else 0.0) + b.var / (b.n * b.mean**2)
    step = max(abs(estimate) * math.sqrt(rel_var) * 2, abs(estimate) * 1e-6, 1e-12)
    inner = estimate
    for _ in range(200):  # the step doubles each time: 200 doublings covers any float
        outer = estimate + direction * step
        if excess(outer) > 0:
            return float(optimize.brentq(excess, min(inner, outer), max(inner, outer)))
        inner, step = outer, step * 2
        if step > abs(estimate) * 1e9 + 1e9:
            break
    return direction * math.inf


def _restricted(
    bounds: tuple[float, float], x: np.ndarray, b: np.ndarray, names: tuple[str, str],
    confidence: float,
) -> tuple[float, float, str]:  # fmt: skip
    """Fieller's bounds of the ratio restricted to R ≥ 0, and the note that says why a
    bound is 0 or +inf (`RelativeDifference.note`)."""
    if not distinguishable_from_zero(b, confidence):
        return 0.0, math.inf, f"{names[1]} is not distinguishable from 0"
    low, high = bounds
    if low <= 0 or not distinguishable_from_zero(x, confidence):
        return 0.0, high, f"{names[0]} is not distinguishable from 0"
    return low, high, ""


def relative_difference(
    level: Sequence[float],
    baseline: Sequence[float],
    level_name: str = "level",
    baseline_name: str = "baseline",
    confidence: float = 0.95,
) -> RelativeDifference:
    """How much larger (positive) or smaller (negative) `level`'s mean is than `baseline`'s.

    Both are repetitions of the same non-negative metric (ops/s, MB/s …). With fewer
    than two values on either side the estimate is returned without interval or p.
    """
    x, b = _checked(level, baseline, level_name, baseline_name, confidence)
    mean_x, mean_b = float(x.mean()), float(b.mean())
    ratio = mean_x / mean_b
    low = high = p = math.nan
    note = ""
    spread = len(x) >= 2 and len(b) >= 2 and (x.var(ddof=1) > 0 or b.var(ddof=1) > 0)
    if spread:
        alpha = 1 - confidence
        mx, mb = _Moments.of(x), _Moments.of(b)
        fieller = (_bound(mx, mb, ratio, -1, alpha), _bound(mx, mb, ratio, +1, alpha))
        low, high, note = _restricted(
            fieller, x, b, (level_name, baseline_name), confidence
        )  # fmt: skip
        t, df = _welch_t_for_ratio(mx, mb, 1.0)
        p = float(2 * scipy_stats.t.sf(abs(t), df))
    elif len(x) >= 2 and len(b) >= 2:  # both constant: the ratio is known exactly
        low = high = ratio
        p = 1.0 if ratio == 1 else 0.0
    return RelativeDifference(
        level=level_name, baseline=baseline_name, estimate=ratio - 1, low=low - 1,
        high=high - 1, confidence=confidence, p=p, mean_level=mean_x, mean_baseline=mean_b,
        n_level=len(x), n_baseline=len(b), note=note,
    )  # fmt: skip


def _paired_bounds(x: np.ndarray, b: np.ndarray, confidence: float) -> tuple[float, float]:
    """Fieller's bounds of mean(x)/mean(b) for matched pairs (±inf when unbounded)."""
    n = len(x)
    q2 = float(scipy_stats.t.ppf((1 + confidence) / 2, n - 1)) ** 2 / n
    cov = np.cov(x, b, ddof=1)
    var_x, var_b, cov_xb = float(cov[0, 0]), float(cov[1, 1]), float(cov[0, 1])
    mean_x, mean_b = float(x.mean()), float(b.mean())
    # (mean_x − R·mean_b)² − q2·(var_x − 2R·cov_xb + R²·var_b) ≤ 0, as a·R² − 2h·R + c ≤ 0
    a = mean_b**2 - q2 * var_b
    h = mean_x * mean_b - q2 * cov_xb
    c = mean_x**2 - q2 * var_x
    discriminant = h * h - a * c
    if a <= 0 or discriminant < 0:
        return -math.inf, math.inf  # the baseline mean is not distinct from zero
    root = math.sqrt(discriminant)
    return (h - root) / a, (h + root) / a


def paired_relative_difference(
    level: Sequence[float],
    baseline: Sequence[float],
    level_name: str = "level",
    baseline_name: str = "baseline",
    confidence: float = 0.95,
) -> RelativeDifference:
    """As `relative_difference`, with `level[i]` and `baseline[i]` a matched pair.

    The interval is the paired Fieller interval and p the paired t-test's (n − 1
    degrees of freedom). Fewer than two pairs: the estimate without interval or p.
    """
    x, b = _checked(level, baseline, level_name, baseline_name, confidence)
    if len(x) != len(b):
        raise StatisticsInputError(
            baseline_name, f"pairs need as many values as {level_name} ({len(x)}), got {len(b)}"
        )
    mean_x, mean_b = float(x.mean()), float(b.mean())
    ratio = mean_x / mean_b
    low = high = p = math.nan
    note = ""
    if len(x) >= 2:
        diff = x - b
        if diff.std(ddof=1) > 0 or (x - ratio * b).std(ddof=1) > 0:
            low, high, note = _restricted(
                _paired_bounds(x, b, confidence), x, b, (level_name, baseline_name), confidence
            )
            sd = float(diff.std(ddof=1))
            t = float(diff.mean()) / (sd / math.sqrt(len(x))) if sd > 0 else math.inf
            p = 0.0 if math.isinf(t) else float(2 * scipy_stats.t.sf(abs(t), len(x) - 1))
        else:  # every pair in the same ratio: known exactly
            low = high = ratio
            p = 1.0 if ratio == 1 else 0.0
    return RelativeDifference(
        level=level_name, baseline=baseline_name, estimate=ratio - 1, low=low - 1,
        high=high - 1, confidence=confidence, p=p, mean_level=mean_x, mean_baseline=mean_b,
        n_level=len(x), n_baseline=len(b), method="fieller-paired", note=note,
    )  # fmt: skip


def against_baseline(
    samples: Mapping[str, Sequence[float]],
    baseline: str,
    confidence: float = 0.95,
    paired: bool = False,
) -> dict[str, RelativeDifference]:
    """Every other level against the named `baseline` level (paper 000: backends against local).

    `samples` maps a level name to its repetitions (with `paired`, in matching order and
    equal numbers). Raises `StatisticsInputError` listing the level names when
    `baseline` is not one of them.
    """
    if baseline not in samples:
        raise StatisticsInputError(
            "baseline", f"{baseline!r} is not a level; levels: {', '.join(map(str, samples))}"
        )
    compare = paired_relative_difference if paired else relative_difference
    return {
        name: compare(values, samples[baseline], name, baseline, confidence)
        for name, values in samples.items()
        if name != baseline
    }
