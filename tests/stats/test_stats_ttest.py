"""Welch and paired t-tests against scipy and against Table 1 of paper 002
(docs/papers.md)."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from contio.errors import StatisticsInputError
from contio.stats import format_p, paired_t_test, welch_t_test

# Paper 002, Table 1: mean difference, standard deviation, t and significance of each paired
# comparison. Its t values equal d̄ / (s / √n) with n = 30 runs, and n = 300 with ten
# containers (30 runs × 10); "0.000" is printed for p < 0.0005.
TABLE_1 = [
    ("HDD, 1 container, read, Docker - Sync", 3.03, 9.6252, 30, 1.724, 0.095),
    ("HDD, 1 container, read, ASync - Docker", 51.47567, 11.78667, 30, 23.921, 0.0),
    ("HDD, 1 container, write, Docker - Sync", 2.02067, 6.41876, 30, 1.724, 0.095),
    ("HDD, 1 container, write, ASync - Docker", 34.43533, 7.74237, 30, 24.361, 0.0),
    ("SSD, 1 container, read, Docker - Sync", 49.068, 9.78441, 30, 27.468, 0.0),
    ("SSD, 1 container, read, ASync - Docker", 457.8957, 24.70485, 30, 101.518, 0.0),
    ("SSD, 1 container, write, Docker - Sync", 32.712, 6.52298, 30, 27.468, 0.0),
    ("SSD, 1 container, write, ASync - Docker", 305.5237, 16.53264, 30, 101.219, 0.0),
    ("HDD, 10 containers, read, Sync - Docker", 10.79887, 5.16282, 300, 36.229, 0.0),
    ("HDD, 10 containers, read, ASync - Docker", 25.84617, 10.36634, 300, 43.185, 0.0),
    ("HDD, 10 containers, write, Sync - Docker", 7.19927, 3.44217, 300, 36.226, 0.0),
    ("HDD, 10 containers, write, ASync - Docker", 17.27263, 7.00878, 300, 42.685, 0.0),
    ("SSD, 10 containers, read, Sync - Docker", 26.1093, 10.13986, 300, 44.599, 0.0),
    ("SSD, 10 containers, read, ASync - Docker", 54.51083, 10.93348, 300, 86.355, 0.0),
    ("SSD, 10 containers, write, Sync - Docker", 17.66503, 6.79731, 300, 45.013, 0.0),
    ("SSD, 10 containers, write, ASync - Docker", 36.51573, 7.41558, 300, 85.289, 0.0),
]


def pairs_with(mean_difference: float, sd: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two paired samples whose differences have exactly this mean and standard deviation."""
    rng = np.random.default_rng(n)
    z = rng.standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    b = 400 + 30 * rng.standard_normal(n)  # the baseline's own spread cancels in a paired test
    return b + mean_difference + sd * z, b


@pytest.mark.parametrize(
    ("name", "mean_d", "sd", "n", "t", "p"), TABLE_1, ids=[r[0] for r in TABLE_1]
)
def test_paired_test_reproduces_table_1(name, mean_d, sd, n, t, p):
    a, b = pairs_with(mean_d, sd, n)
    result = paired_t_test(a, b, *name.rsplit(", ", 1)[1].split(" - "))
    assert result.mean_difference == pytest.approx(mean_d, rel=1e-9)
    assert result.std_deviation == pytest.approx(sd, rel=1e-9)
    assert round(result.t, 3) == pytest.approx(t, abs=1e-9)
    assert round(result.p, 3) == p
    assert result.df == n - 1
    assert result.significant() == (p < 0.05)
    row = result.table_row()
    assert row["t"] == f"{t:.3f}"
    assert row["sig"] == ("0.095" if p else "< 0.001")


def test_paired_test_equals_scipy_ttest_rel():
    a = [812.0, 790.5, 845.2, 801.9, 799.0, 830.3]
    b = [780.1, 792.0, 810.4, 770.6, 781.2, 805.9]
    result = paired_t_test(a, b, "nfs-async", "volume")
    reference = scipy_stats.ttest_rel(a, b)
    assert result.t == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p == pytest.approx(reference.pvalue, rel=1e-12)
    low, high = reference.confidence_interval(0.95)
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high), rel=1e-12)
    assert result.comparison == "nfs-async - volume"


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_welch_test_equals_scipy_ttest_ind_unequal_variances(confidence):
    a = [10234.0, 9877.5, 10410.2, 10102.8, 9990.1]
    b = [9120.4, 9733.9, 8890.2, 9411.0, 9950.7, 9302.6, 9010.0]
    result = welch_t_test(a, b, "local", "dispersed", confidence)
    reference = scipy_stats.ttest_ind(a, b, equal_var=False)
    assert result.t == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p == pytest.approx(reference.pvalue, rel=1e-12)
    assert result.df == pytest.approx(reference.df, rel=1e-12)
    low, high = reference.confidence_interval(confidence)
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high), rel=1e-10)
    assert result.mean_difference == pytest.approx(np.mean(a) - np.mean(b))
    assert result.std_deviation == pytest.approx(math.hypot(np.std(a, ddof=1), np.std(b, ddof=1)))
    assert (result.n_a, result.n_b) == (5, 7)


def test_welch_differs_from_the_pooled_test_on_unequal_variances():
    a = [100.0, 101.0, 99.0, 100.5]
    b = [80.0, 120.0, 60.0, 140.0, 95.0, 105.0, 90.0, 110.0]
    pooled = scipy_stats.ttest_ind(a, b, equal_var=True)
    assert welch_t_test(a, b).p != pytest.approx(pooled.pvalue, rel=1e-3)


def test_identical_constant_samples_have_no_test():
    result = welch_t_test([5.0, 5.0, 5.0], [5.0, 5.0])
    assert math.isnan(result.t) and math.isnan(result.p)
    assert format_p(result.p) == "n/a"


def test_bad_input_names_the_argument():
    with pytest.raises(StatisticsInputError, match=r"^b: a paired test needs as many values"):
        paired_t_test([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(StatisticsInputError, match=r"^a: needs at least 2 values"):
        welch_t_test([1.0], [1.0, 2.0])
    with pytest.raises(StatisticsInputError, match=r"^b: contains NaN"):
        welch_t_test([1.0, 2.0], [1.0, math.nan])
    with pytest.raises(StatisticsInputError, match=r"^confidence"):
        welch_t_test([1.0, 2.0], [1.0, 2.0], confidence=95)
