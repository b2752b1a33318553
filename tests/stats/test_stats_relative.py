"""Relative difference against a baseline: Fieller–Welch interval checked against scipy.

The reference numbers are those of paper 000 (docs/papers.md).
"""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from contio.errors import StatisticsInputError
from contio.stats import (
    against_baseline,
    paired_relative_difference,
    relative_difference,
    relative_sentence,
)

LOCAL = [10120.0, 9875.3, 10240.8, 9990.4, 10050.1]
HYPERCONVERGED = [10802.2, 10610.9, 10915.4, 10700.0, 10833.5, 10650.7]


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_bounds_are_where_welch_test_of_the_scaled_baseline_reaches_alpha(confidence):
    diff = relative_difference(HYPERCONVERGED, LOCAL, "hyperconverged", "local", confidence)
    for bound in (diff.low, diff.high):
        scaled = np.asarray(LOCAL) * (1 + bound)
        p = scipy_stats.ttest_ind(HYPERCONVERGED, scaled, equal_var=False).pvalue
        assert p == pytest.approx(1 - confidence, abs=1e-9)
    inside = np.asarray(LOCAL) * (1 + diff.estimate)
    assert scipy_stats.ttest_ind(HYPERCONVERGED, inside, equal_var=False).pvalue > 1 - confidence
    assert diff.low < diff.estimate < diff.high


def test_estimate_and_p_value_of_no_difference():
    diff = relative_difference(HYPERCONVERGED, LOCAL, "hyperconverged", "local")
    assert diff.estimate == pytest.approx(np.mean(HYPERCONVERGED) / np.mean(LOCAL) - 1)
    assert diff.estimate == pytest.approx(0.07, abs=0.005)  # paper 000's "7% better"
    assert diff.p == pytest.approx(
        scipy_stats.ttest_ind(HYPERCONVERGED, LOCAL, equal_var=False).pvalue, rel=1e-12
    )
    assert diff.significant
    assert (diff.level, diff.baseline, diff.n_level, diff.n_baseline) == (
        "hyperconverged",
        "local",
        6,
        5,
    )


def test_interval_is_skewed_upwards_when_the_baseline_is_noisy():
    # A noisy denominator stretches the ratio's upper side: the delta method misses this.
    level = [100.0, 101.0, 99.0, 100.0, 100.5]
    baseline = [60.0, 75.0, 50.0, 68.0, 47.0]
    diff = relative_difference(level, baseline)
    assert diff.high - diff.estimate > 1.2 * (diff.estimate - diff.low)


def test_coverage_is_close_to_nominal():
    rng = np.random.default_rng(7)
    true_ratio, hits, trials = 1.25, 0, 400
    for _ in range(trials):
        level = rng.normal(125.0, 12.0, 5)
        baseline = rng.normal(100.0, 4.0, 8)
        diff = relative_difference(level, baseline)
        hits += diff.low <= true_ratio - 1 <= diff.high
    assert 0.92 <= hits / trials <= 0.98


def test_overlapping_levels_are_not_significant():
    diff = relative_difference([100.0, 104.0, 97.0], [101.0, 99.0, 103.0])
    assert diff.low < 0 < diff.high
    assert not diff.significant


def test_one_repetition_gives_the_estimate_without_interval():
    diff = relative_difference([156.0], [100.0, 101.0, 99.0])
    assert diff.estimate == pytest.approx(0.56)  # Paper 000's "56% better"
    assert not diff.has_interval
    assert math.isnan(diff.low) and math.isnan(diff.p)


def test_interval_is_unbounded_when_the_baseline_mean_is_not_distinct_from_zero():
    # One repetition of the baseline hit an outage: its mean is not told apart from 0, so
    # no finite ratio bounds the interval, and the difference says so instead of a number.
    diff = relative_difference([1000.0, 1100.0, 900.0], [1200.0, 60.0, 1500.0], "B", "A")
    assert diff.unbounded and math.isinf(diff.high)
    assert diff.low == -1.0  # a throughput falls by 100% at most
    assert diff.note == "A is not distinguishable from 0"
    assert relative_sentence(diff) == (
        "B is 9% (interval unbounded: A is not distinguishable from 0) faster than A, "
        "p = 0.873 (not significant)"
    )


# Reconstructions of what issue 12 saw: two repetitions of the mixed (or B) side, whose
# Fieller set reached below R = 0 — a drop of more than 100%.
MIXED, STANDALONE = [225.0, 275.0], [945.0, 1000.0, 1055.0]  # printed "75% (59% to 106%)"
COMPARE_B, COMPARE_A = [140.0, 860.0], [732.0, 1000.0, 1268.0]  # printed "-250% to 124%"


def test_a_level_not_distinguishable_from_zero_stops_at_minus_100_percent():
    diff = relative_difference(COMPARE_B, COMPARE_A, "B", "A")
    assert diff.estimate == pytest.approx(-0.5)
    assert diff.low == -1.0 and diff.high == pytest.approx(1.24, abs=0.005)
    assert diff.note == "B is not distinguishable from 0"
    # The upper bound is still Fieller's: Welch's test of B against A scaled by it.
    scaled = np.asarray(COMPARE_A) * (1 + diff.high)
    p = scipy_stats.ttest_ind(COMPARE_B, scaled, equal_var=False).pvalue
    assert p == pytest.approx(0.05, abs=1e-9)


@pytest.mark.parametrize("paired", [False, True])
def test_no_interval_reaches_below_minus_100_percent(paired):
    rng = np.random.default_rng(3)
    compare = paired_relative_difference if paired else relative_difference
    for _ in range(300):
        n = int(rng.integers(2, 6))
        level = np.abs(rng.normal(50.0, 60.0, n))  # spreads of up to ~ the mean
        baseline = np.abs(rng.normal(100.0, 80.0, n))
        diff = compare(level, baseline)
        assert diff.low >= -1.0 and diff.high > diff.low
        assert diff.unbounded == diff.note.startswith("baseline"), diff
        if not diff.unbounded:  # Fieller's interval inverts the test beside it
            assert diff.significant == (diff.low > 0 or diff.high < 0), diff


def test_bad_input_names_the_argument():
    with pytest.raises(StatisticsInputError, match=r"^local: has mean 0"):
        relative_difference([1.0, 2.0], [0.0, 0.0], baseline_name="local")
    with pytest.raises(StatisticsInputError, match=r"^dispersed: needs at least one value"):
        relative_difference([], [1.0], level_name="dispersed")
    with pytest.raises(StatisticsInputError, match=r"^confidence"):
        relative_difference([1.0], [1.0], confidence=1.5)
    with pytest.raises(StatisticsInputError, match=r"^local: contains negative values"):
        relative_difference([1.0, 2.0], [3.0, -1.0], baseline_name="local")


def test_every_level_against_a_named_baseline():
    found = against_baseline(
        {"local": LOCAL, "hyperconverged": HYPERCONVERGED, "dispersed": [9100.0, 9300.0, 9050.0]},
        baseline="local",
    )
    assert list(found) == ["hyperconverged", "dispersed"]
    assert found["hyperconverged"] == relative_difference(
        HYPERCONVERGED, LOCAL, "hyperconverged", "local"
    )
    assert found["dispersed"].estimate < 0 and found["dispersed"].baseline == "local"
    with pytest.raises(
        StatisticsInputError, match=r"^baseline: 'nfs' is not a level; levels: a, b"
    ):
        against_baseline({"a": [1.0], "b": [2.0]}, baseline="nfs")


# Matched repetitions: each pair shares its slot's machine state (a slow slot slows both).
PAIRED_LOCAL = [10120.0, 9310.3, 10840.8, 9590.4, 10450.1, 9820.0]
PAIRED_LEVEL = [10850.2, 9980.9, 11565.4, 10330.0, 11190.5, 10470.7]


@pytest.mark.parametrize("confidence", [0.90, 0.95, 0.99])
def test_paired_bounds_are_where_the_paired_test_of_the_scaled_baseline_reaches_alpha(confidence):
    diff = paired_relative_difference(PAIRED_LEVEL, PAIRED_LOCAL, "dispersed", "local", confidence)
    for bound in (diff.low, diff.high):
        scaled = np.asarray(PAIRED_LOCAL) * (1 + bound)
        p = scipy_stats.ttest_rel(PAIRED_LEVEL, scaled).pvalue
        assert p == pytest.approx(1 - confidence, abs=1e-9)
    assert diff.low < diff.estimate < diff.high
    assert diff.p == pytest.approx(scipy_stats.ttest_rel(PAIRED_LEVEL, PAIRED_LOCAL).pvalue)
    assert diff.method == "fieller-paired"


def test_pairing_narrows_the_interval_when_the_slots_are_correlated():
    paired = paired_relative_difference(PAIRED_LEVEL, PAIRED_LOCAL)
    independent = relative_difference(PAIRED_LEVEL, PAIRED_LOCAL)
    assert paired.estimate == pytest.approx(independent.estimate)
    assert paired.high - paired.low < 0.5 * (independent.high - independent.low)
    assert paired.p < independent.p


def test_paired_coverage_is_close_to_nominal():
    rng = np.random.default_rng(11)
    hits, trials = 0, 400
    for _ in range(trials):
        slot = rng.normal(0.0, 8.0, 6)  # shared by both levels of a repetition
        level = 125.0 + 1.25 * slot + rng.normal(0.0, 3.0, 6)
        baseline = 100.0 + slot + rng.normal(0.0, 3.0, 6)
        diff = paired_relative_difference(level, baseline)
        hits += diff.low <= 0.25 <= diff.high
    assert 0.92 <= hits / trials <= 0.98


def test_paired_needs_as_many_values_on_each_side():
    with pytest.raises(StatisticsInputError, match="pairs need as many values"):
        paired_relative_difference([1.0, 2.0, 3.0], [1.0, 2.0])
    one = paired_relative_difference([11.0], [10.0])
    assert one.estimate == pytest.approx(0.1) and math.isnan(one.low) and math.isnan(one.p)


def test_every_level_against_a_baseline_in_pairs():
    diffs = against_baseline(
        {"local": PAIRED_LOCAL, "dispersed": PAIRED_LEVEL}, "local", paired=True
    )
    assert diffs["dispersed"].method == "fieller-paired"
