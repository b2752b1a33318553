"""Saturation point and throughput valley on scaling curves shaped like the figures of paper
003 (docs/papers.md)."""

import numpy as np
import pytest

from contio.errors import StatisticsInputError
from contio.stats import find_valley, saturation_point

CONTAINERS = [1, 2, 3, 4, 5, 6, 7, 8]


def repetitions(means, spread=0.01, n=4, seed=3):
    """n repetitions per level, normally spread by `spread` (a fraction of the mean)."""
    rng = np.random.default_rng(seed)
    return [list(m * (1 + spread * rng.standard_normal(n))) for m in means]


def test_throughput_still_growing_has_no_saturation_point():
    # Paper 003, Fig. 3: MySQL's cumulative TpmC grows up to eight containers.
    data = repetitions([4.0, 7.5, 10.0, 12.0, 13.8, 15.4, 16.6, 18.4])
    result = saturation_point(CONTAINERS, data)
    assert result.point is None
    assert result.peak_level == 8
    assert result.has_intervals


def test_writes_saturate_at_six_containers():
    # Paper 003, Fig. 5: Cassandra 100% writes scale to six containers, then the CPU is saturated.
    data = repetitions([15.0, 28.0, 39.0, 48.0, 55.0, 60.0, 60.4, 59.8])
    result = saturation_point(CONTAINERS, data)
    assert result.point == 6
    assert result.confirmed  # 7 and 8 are shown to add less than 5%
    assert [g.level for g in result.gains] == ["7", "8"]
    assert all(g.baseline == "6" for g in result.gains)


def test_noisy_plateau_is_saturated_but_not_confirmed():
    data = repetitions([10.0, 19.0, 20.0, 20.5], spread=0.08, n=3, seed=5)
    result = saturation_point([1, 2, 3, 4], data)
    assert result.point == 2
    assert not result.confirmed  # the intervals are too wide to rule out a 5% gain


def test_min_gain_moves_the_point():
    data = repetitions([10.0, 16.0, 17.0, 17.4, 17.6], spread=0.003)
    assert saturation_point([1, 2, 3, 4, 5], data, min_gain=0.05).point == 3
    assert saturation_point([1, 2, 3, 4, 5], data, min_gain=0.15).point == 2


def test_single_repetitions_compare_means():
    result = saturation_point([1, 2, 4, 8], [[10.0], [18.0], [18.5], [18.2]])
    assert result.point == 2
    assert not result.has_intervals


def test_read_valley_that_recovers_towards_disk_bandwidth():
    # Paper 003, Fig. 7: fio 4K buffered random reads, served from the page cache up to three
    # containers, a valley at four, then cumulative throughput climbs to the disk's rate.
    data = repetitions([300.0, 520.0, 610.0, 240.0, 300.0, 380.0, 420.0, 430.0], spread=0.03)
    valley = find_valley(CONTAINERS, data)
    assert (valley.peak_level, valley.bottom_level, valley.recovery_level) == (3, 4, 5)
    assert valley.recovered
    assert valley.depth.estimate == pytest.approx(240 / 610 - 1, abs=0.03)
    assert valley.depth.high < 0
    assert valley.rise.low > 0


def test_drop_without_recovery_is_reported_as_such():
    # Paper 003, Fig. 6: Cassandra reads drop after three containers and stay at disk bandwidth.
    data = repetitions([90.0, 160.0, 200.0, 95.0, 93.0, 96.0], spread=0.02)
    valley = find_valley([1, 2, 3, 4, 5, 6], data)
    assert valley.peak_level == 3
    assert valley.bottom_level in (4, 5)
    assert not valley.recovered


def test_monotonic_or_noisy_curves_have_no_valley():
    assert find_valley(CONTAINERS, repetitions([1, 2, 3, 4, 5, 6, 7, 8])) is None
    # A 5% dip within 8% noise is not a valley.
    noisy = repetitions([100.0, 100.0, 95.0, 100.0], spread=0.08, n=3, seed=11)
    assert find_valley([1, 2, 3, 4], noisy) is None


def test_levels_are_sorted_before_analysis():
    data = repetitions([15.0, 28.0, 39.0, 48.0, 55.0, 60.0, 60.4, 59.8])
    shuffled = [5, 0, 7, 2, 6, 1, 4, 3]
    result = saturation_point([CONTAINERS[i] for i in shuffled], [data[i] for i in shuffled])
    assert result.point == 6


def test_bad_input_names_the_argument():
    with pytest.raises(StatisticsInputError, match=r"^samples: needs one list"):
        saturation_point([1, 2, 3], [[1.0], [2.0]])
    with pytest.raises(StatisticsInputError, match=r"^levels: a scaling analysis needs"):
        find_valley([1], [[1.0]])
    with pytest.raises(StatisticsInputError, match=r"^levels: levels must be distinct"):
        find_valley([1, 1], [[1.0], [2.0]])
    with pytest.raises(StatisticsInputError, match=r"^samples: level 2 has no repetitions"):
        saturation_point([1, 2], [[1.0], []])
    with pytest.raises(StatisticsInputError, match=r"^min_gain"):
        saturation_point([1, 2], [[1.0], [2.0]], min_gain=5)
