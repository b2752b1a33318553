"""contio.stats.hypothesis against statsmodels, the oracle: one-sided Welch, paired and
one-sample t-tests, TOST, and the normal-approximation sample size."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats import power, weightstats

from contio.stats.hypothesis import (
    POWER,
    one_sample_p,
    one_sided_p,
    repetitions_needed,
    tost,
)

RNG = np.random.default_rng(31)
X = RNG.normal(105.0, 6.0, 7)
Y = RNG.normal(100.0, 4.0, 7)
SIDES = {"greater": "larger", "less": "smaller"}


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_welch_and_paired_match_statsmodels(alternative):
    welch = weightstats.ttest_ind(X, Y, alternative=SIDES[alternative], usevar="unequal")[1]
    assert one_sided_p(X, Y, False, alternative) == pytest.approx(welch, rel=1e-9)
    paired = weightstats.DescrStatsW(X - Y).ttest_mean(0, alternative=SIDES[alternative])[1]
    assert one_sided_p(X, Y, True, alternative) == pytest.approx(paired, rel=1e-9)
    one = weightstats.DescrStatsW(X).ttest_mean(103.0, alternative=SIDES[alternative])[1]
    assert one_sample_p(X, 103.0, alternative) == pytest.approx(one, rel=1e-9)


def test_tost_is_statsmodels_tost_on_the_band_edges():
    # statsmodels' ttost_paired takes the band as differences; for a ratio band the edges
    # scale y, so each edge is its own one-sided test: compare per edge, paired.
    margin = 0.1
    inside, outside = tost(X, Y, margin, paired=True)
    low = weightstats.DescrStatsW(X - 0.9 * Y).ttest_mean(0, alternative="larger")[1]
    high = weightstats.DescrStatsW(X - 1.1 * Y).ttest_mean(0, alternative="smaller")[1]
    assert inside == pytest.approx(max(low, high), rel=1e-9)
    # With y constant the ratio band is a difference band: statsmodels' own TOST.
    y = np.full_like(X, 100.0)
    p_ttost = weightstats.ttost_paired(X, y, -10.0, 10.0)[0]
    assert tost(X, y, margin, paired=True)[0] == pytest.approx(p_ttost, rel=1e-9)
    assert 0 <= outside <= 1


def test_no_spread_is_known_exactly():
    same = np.array([5.0, 5.0, 5.0])
    assert one_sided_p(same + 1, same, True, "greater") == 0.0
    assert one_sided_p(same + 1, same, False, "less") == 1.0
    assert math.isnan(one_sided_p(same, same, True, "greater"))
    assert one_sample_p(same, 4.0, "greater") == 0.0


def test_repetitions_needed_is_the_normal_approximation_statsmodels_solves():
    spread, distance, alpha = 0.08, 0.05, 0.05
    n = repetitions_needed(spread, distance, alpha)
    exact = power.NormalIndPower().solve_power(
        effect_size=distance / spread, alpha=alpha, power=POWER, ratio=0, alternative="larger"
    )
    assert n == math.ceil(exact)
    assert repetitions_needed(math.inf, distance, alpha) is None
    assert repetitions_needed(spread, 0.0, alpha) is None
    assert repetitions_needed(0.001, 1.0, alpha) == 2
