"""Welch and paired t-tests, reported the way Table 1 of paper 002 reports
them (docs/papers.md).

Table 1 of Schaefer et al. (paper 002) gives, per comparison "A - B": the mean
difference, its standard deviation, t and the two-sided significance. Its numbers
fit a paired test over n = 30 runs (n = 300 with ten containers): t = d̄ / (s_d / √n).

- Paired (`paired_t_test`): repetition i of A is matched with repetition i of B
  (same seed, same run slot). d_i = a_i − b_i, t = d̄ / (s_d/√n), df = n − 1.
- Welch (`welch_t_test`): independent samples with possibly different variances.
  t = (ā − b̄) / √(s_a²/n_a + s_b²/n_b), df from the Welch–Satterthwaite equation.
  Its "standard deviation" is √(s_a² + s_b²), the spread of the difference between
  one repetition of A and one of B (the counterpart of the paired s_d).

Both match `scipy.stats.ttest_rel` and `scipy.stats.ttest_ind(equal_var=False)`;
scipy computes t and p, this module adds the mean difference, the spread and the
confidence interval of the difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats as scipy_stats

from contio.errors import StatisticsInputError

TestKind = Literal["paired", "welch"]


@dataclass(frozen=True)
class TTestResult:
    """The outcome of a two-sided t-test of "A − B = 0"."""

    kind: TestKind
    label_a: str
    label_b: str
    mean_difference: float
    """Mean of A minus mean of B (for paired: the mean of the differences)."""
    std_deviation: float
    """Paired: s of the differences. Welch: √(s_a² + s_b²)."""
    standard_error: float
    t: float
    df: float
    p: float
    """Two-sided p-value."""
    n_a: int
    n_b: int
    confidence: float
    ci_low: float
    """Lower bound of the confidence interval of the mean difference."""
    ci_high: float

    @property
    def comparison(self) -> str:
        """The row label of Table 1, "A - B"."""
        return f"{self.label_a} - {self.label_b}"

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether p < alpha (paper 002 uses 0.05)."""
        return self.p < alpha

    def table_row(self, digits: int = 3) -> dict[str, str]:
        """One row in the layout of paper 002's Table 1: comparison, mean, std. dev., t, sig."""
        return {
            "comparison": self.comparison,
            "mean": f"{self.mean_difference:.{digits}f}",
            "std_deviation": f"{self.std_deviation:.{digits}f}",
            "t": f"{self.t:.{digits}f}",
            "sig": format_p(self.p),
        }


def format_p(p: float) -> str:
    """p with three decimals, "< 0.001" below that (Table 1 prints ",000")."""
    if math.isnan(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def _values(name: str, values: Sequence[float], minimum: int) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or len(array) < minimum:
        raise StatisticsInputError(
            name, f"needs at least {minimum} values, got {len(array) if array.ndim else 0}"
        )
    if not np.all(np.isfinite(array)):
        raise StatisticsInputError(name, "contains NaN or infinite values")
    return array


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise StatisticsInputError("confidence", f"must be in (0, 1), not {confidence}")


def _two_sided(t: float, df: float) -> float:
    if math.isnan(t):
        return math.nan
    return float(2 * scipy_stats.t.sf(abs(t), df))


def paired_t_test(
    a: Sequence[float],
    b: Sequence[float],
    label_a: str = "A",
    label_b: str = "B",
    confidence: float = 0.95,
) -> TTestResult:
    """Paired two-sided t-test of A − B; `a[i]` and `b[i]` are one matched pair."""
    _check_confidence(confidence)
    xa, xb = _values("a", a, 2), _values("b", b, 2)
    if len(xa) != len(xb):
        raise StatisticsInputError(
            "b", f"a paired test needs as many values as a ({len(xa)}), got {len(xb)}"
        )
    diff = xa - xb
    n = len(diff)
    mean_d = float(diff.mean())
    sd = float(diff.std(ddof=1))
    se = sd / math.sqrt(n)
    df = float(n - 1)
    t = mean_d / se if se > 0 else (math.nan if mean_d == 0 else math.copysign(math.inf, mean_d))
    p = 0.0 if math.isinf(t) else _two_sided(t, df)
    half = float(scipy_stats.t.ppf((1 + confidence) / 2, df)) * se
    return TTestResult(
        "paired", label_a, label_b, mean_d, sd, se, t, df, p, n, n,
        confidence, mean_d - half, mean_d + half,
    )  # fmt: skip


def welch_degrees_of_freedom(var_a: float, n_a: int, var_b: float, n_b: int) -> float:
    """Welch–Satterthwaite degrees of freedom for two sample variances."""
    qa, qb = var_a / n_a, var_b / n_b
    denominator = qa**2 / (n_a - 1) + qb**2 / (n_b - 1)
    return (qa + qb) ** 2 / denominator if denominator > 0 else math.nan


def welch_t_test(
    a: Sequence[float],
    b: Sequence[float],
    label_a: str = "A",
    label_b: str = "B",
    confidence: float = 0.95,
) -> TTestResult:
    """Welch's two-sided t-test of mean(A) − mean(B) for independent samples."""
    _check_confidence(confidence)
    xa, xb = _values("a", a, 2), _values("b", b, 2)
    va, vb = float(xa.var(ddof=1)), float(xb.var(ddof=1))
    na, nb = len(xa), len(xb)
    mean_d = float(xa.mean() - xb.mean())
    se = math.sqrt(va / na + vb / nb)
    df = welch_degrees_of_freedom(va, na, vb, nb)
    if se > 0:
        t = mean_d / se
        p = _two_sided(t, df)
        half = float(scipy_stats.t.ppf((1 + confidence) / 2, df)) * se
    else:  # both samples constant: no spread to test against
        t = math.nan if mean_d == 0 else math.copysign(math.inf, mean_d)
        p = math.nan if mean_d == 0 else 0.0
        half = 0.0
    return TTestResult(
        "welch", label_a, label_b, mean_d, math.sqrt(va + vb), se, t, df, p, na, nb,
        confidence, mean_d - half, mean_d + half,
    )  # fmt: skip
