"""Degradation against standalone and Jain's fairness index, with the numbers of paper 003
(docs/papers.md)."""

import pytest

from contio.errors import StatisticsInputError
from contio.stats import degradation, jain_index, mix_fairness

# Paper 003, Section V: standalone best Cassandra 60K ops/s and MySQL 18K TpmC; in the mix
# 50K and 9K. Repetitions around those means (the paper gives means only).
CASSANDRA_ALONE = [59_400.0, 60_500.0, 60_100.0]
CASSANDRA_MIXED = [49_700.0, 50_400.0, 49_900.0]
MYSQL_ALONE = [17_800.0, 18_200.0, 18_000.0]
MYSQL_MIXED = [9_100.0, 8_850.0, 9_050.0]


def test_degradations_of_the_cassandra_mysql_mix_are_16_and_50_percent():
    cassandra = degradation(CASSANDRA_MIXED, CASSANDRA_ALONE, "Cassandra")
    mysql = degradation(MYSQL_MIXED, MYSQL_ALONE, "MySQL")
    assert cassandra.fraction == pytest.approx(1 - 50_000 / 60_000, abs=0.005)  # "around 16%"
    assert mysql.fraction == pytest.approx(0.5, abs=0.005)  # "around 50%"
    for item in (cassandra, mysql):
        assert item.low < item.fraction < item.high
        assert item.low > 0  # significant loss
        assert item.retained == pytest.approx(1 - item.fraction)
    # The interval is the negated relative difference of mixed against standalone.
    assert mysql.low == pytest.approx(-mysql.relative.high)


def test_jain_index_known_values():
    assert jain_index([1.0, 1.0, 1.0, 1.0]) == pytest.approx(1.0)
    assert jain_index([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)  # 1/n: one takes all
    assert jain_index([5.0]) == pytest.approx(1.0)
    # (1 + 2 + 3)² / (3 · (1 + 4 + 9)) = 36 / 42
    assert jain_index([1.0, 2.0, 3.0]) == pytest.approx(36 / 42)
    # scale-invariant
    assert jain_index([10.0, 20.0, 30.0]) == pytest.approx(36 / 42)


def test_mix_fairness_ranks_the_unfair_mix_below_the_fair_one():
    unfair = mix_fairness(
        {"Cassandra": (CASSANDRA_MIXED, CASSANDRA_ALONE), "MySQL": (MYSQL_MIXED, MYSQL_ALONE)}
    )
    retained = [d.retained for d in unfair.degradations]
    assert unfair.jain_index == pytest.approx(jain_index(retained))
    assert unfair.jain_index == pytest.approx(0.94, abs=0.01)  # 0.833 and 0.5 retained
    assert unfair.worst.application == "MySQL"
    # Paper 003, Fig. 10: Cassandra with sequential writes, each degrades 10–15%: fair.
    fair = mix_fairness(
        {
            "Cassandra": ([52_000.0, 51_500.0, 52_400.0], CASSANDRA_ALONE),
            "fio seqwrite": ([5_640.0, 5_560.0, 5_600.0], [6_480.0, 6_520.0, 6_500.0]),
        }
    )
    assert fair.jain_index > unfair.jain_index
    assert fair.jain_index > 0.999


def test_bad_input_names_the_argument():
    with pytest.raises(StatisticsInputError, match=r"^values: allocations must be finite"):
        jain_index([1.0, -1.0])
    with pytest.raises(StatisticsInputError, match=r"^values: all allocations are 0"):
        jain_index([0.0, 0.0])
    with pytest.raises(StatisticsInputError, match=r"^applications: a mix needs at least two"):
        mix_fairness({"MySQL": (MYSQL_MIXED, MYSQL_ALONE)})
