"""contio.stats against scipy and against textbook t quantiles."""

import math

import pytest
from scipy import stats as scipy_stats

from contio.stats import confidence_interval, mean, stdev

# Two-sided 95% Student t quantiles t(0.975, df), as printed in standard tables.
T_975 = {1: 12.706205, 2: 4.302653, 4: 2.776445, 9: 2.262157, 29: 2.045230}


def test_mean_and_sample_standard_deviation():
    assert mean([10.0, 12.0, 14.0]) == 12.0
    assert stdev([10.0, 12.0, 14.0]) == pytest.approx(2.0)
    assert math.isnan(stdev([5.0]))
    assert math.isnan(mean([]))


def test_three_repetitions_match_the_t_table():
    ci = confidence_interval([10.0, 12.0, 14.0])
    # 4.302653 · 2 / √3
    assert ci.half_width == pytest.approx(T_975[2] * 2.0 / math.sqrt(3), rel=1e-6)
    assert ci.half_width == pytest.approx(4.968275, rel=1e-6)
    assert (ci.low, ci.high) == pytest.approx((12.0 - 4.968275, 12.0 + 4.968275), rel=1e-6)
    assert ci.n == 3


@pytest.mark.parametrize("n", sorted(T_975))
def test_quantiles_used_are_the_table_values(n):
    values = [0.0, 1.0] + [0.5] * (n - 1)  # n + 1 values, df = n
    ci = confidence_interval(values)
    sem = stdev(values) / math.sqrt(len(values))
    assert ci.half_width / sem == pytest.approx(T_975[n], rel=1e-5)


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_interval_equals_scipy_t_interval(confidence):
    values = [9771.3, 10234.8, 9950.1, 10112.4, 9889.0]
    low, high = scipy_stats.t.interval(
        confidence, df=len(values) - 1, loc=mean(values), scale=scipy_stats.sem(values)
    )
    ci = confidence_interval(values, confidence)
    assert (ci.low, ci.high) == pytest.approx((low, high), rel=1e-12)
    assert ci.relative_half_width == pytest.approx((high - low) / 2 / mean(values), rel=1e-12)


def test_one_value_has_no_interval():
    ci = confidence_interval([42.0])
    assert ci.mean == 42.0
    assert math.isnan(ci.half_width)


def test_confidence_must_be_a_fraction():
    with pytest.raises(ValueError, match="confidence"):
        confidence_interval([1.0, 2.0], confidence=95)
