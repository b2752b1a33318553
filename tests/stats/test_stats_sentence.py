"""Statistics results as report sentences."""

import pytest

from contio.stats import (
    degradation,
    degradation_sentence,
    fairness_sentence,
    find_valley,
    mix_fairness,
    paired_relative_difference,
    paired_t_test,
    relative_difference,
    relative_sentence,
    saturation_point,
    saturation_sentence,
    t_test_sentence,
    valley_sentence,
)
from contio.stats.sentence import magnitude_with_interval

LOCAL = [1000.0, 1010.0, 990.0, 1005.0, 995.0]
DISPERSED = [880.0, 870.0, 885.0, 875.0, 890.0]


def test_relative_difference_sentence_in_the_issue_layout():
    diff = relative_difference(DISPERSED, LOCAL, "dispersed", "local")
    text = relative_sentence(diff, context="for workload B at 50 threads")
    assert text == "dispersed is 12% ± 1% slower than local for workload B at 50 threads, p < 0.001"
    faster = relative_sentence(relative_difference(LOCAL, DISPERSED, "local", "dispersed"))
    assert faster.startswith("local is 14% ± 1% faster than dispersed")


def test_a_paired_comparison_says_so_beside_its_p():
    diff = paired_relative_difference(DISPERSED, LOCAL, "dispersed", "local")
    text = relative_sentence(diff, context="for workload B")
    assert text.startswith("dispersed is 12% ")
    assert text.endswith("slower than local for workload B, paired p < 0.001")


def test_latency_words_and_not_significant_marker():
    diff = relative_difference([5.1, 4.8, 5.3], [5.0, 5.2, 4.9], "nfs", "volume")
    text = relative_sentence(diff, more="higher", less="lower")
    assert text.startswith("nfs is ")
    assert "than volume" in text
    assert text.endswith("(not significant)")
    assert "CI" in text or "±" in text


def test_asymmetric_interval_is_spelled_out():
    assert magnitude_with_interval(0.12, 0.09, 0.16, 0.95) == "12% (95% CI 9% to 16%)"
    assert magnitude_with_interval(0.12, 0.09, 0.15, 0.95) == "12% ± 3%"
    assert magnitude_with_interval(0.004, 0.001, 0.007, 0.95) == "0.4% ± 0.3%"
    assert magnitude_with_interval(0.56, 0.0, 0.0, 0.95, has_interval=False) == "56%"


def test_single_repetition_says_there_is_no_interval():
    diff = relative_difference([156.0], [100.0, 101.0, 99.0], "hyperconverged", "local")
    text = relative_sentence(diff, context="for Heavy Update at 80 threads")
    assert text == (
        "hyperconverged is 56% faster than local for Heavy Update at 80 threads"
        " (one repetition on a side, no interval)"
    )


def test_t_test_sentence_carries_table_1_columns():
    result = paired_t_test([23.0, 25.0, 21.0, 24.0], [12.0, 14.0, 11.0, 12.5], "Sync", "Docker")
    text = t_test_sentence(result, unit="reads/s", context="on HDD")
    assert text.startswith(
        "Sync - Docker on HDD: mean difference 10.88 reads/s (s = 0.63), t = 34.57"
    )
    assert text.endswith("(paired t-test, significant at 5%)")


def test_degradation_fairness_saturation_and_valley_sentences():
    mix = mix_fairness(
        {
            "Cassandra": ([49_700.0, 50_400.0, 49_900.0], [59_400.0, 60_500.0, 60_100.0]),
            "MySQL": ([9_100.0, 8_850.0, 9_050.0], [17_800.0, 18_200.0, 18_000.0]),
        }
    )
    mysql = mix.worst
    assert degradation_sentence(mysql, "beside Cassandra") == (
        "MySQL loses 50% ± 2% of its standalone throughput beside Cassandra, p < 0.001"
    )
    assert (
        fairness_sentence(mix)
        == "Jain's fairness index 0.94 over Cassandra (-17%) and MySQL (-50%)"
    )
    gain = degradation([110.0, 111.0, 109.0], [100.0, 101.0, 99.0], "fio")
    assert degradation_sentence(gain).startswith("fio gains 10% ± ")

    flat = saturation_point([1, 2, 3], [[10.0, 10.1], [20.0, 20.2], [20.1, 20.2]])
    assert saturation_sentence(flat) == (
        "throughput stops growing at 2 containers (every larger count is shown to add less than 5%)"
    )
    growing = saturation_point([1, 2, 3], [[10.0, 10.1], [20.0, 20.2], [30.1, 30.2]])
    assert saturation_sentence(growing, unit="threads") == (
        "throughput still grows at the largest count measured"
    )
    valley = find_valley(
        [1, 2, 3, 4, 5],
        [[100.0, 101.0], [200.0, 202.0], [90.0, 91.0], [150.0, 152.0], [150.0, 151.0]],
    )
    assert valley_sentence(valley) == (
        "throughput falls 55% ± 1% from 2 to 3 containers and climbs again at 4 containers"
    )


@pytest.mark.parametrize("p", [0.2, 0.0004])
def test_p_value_wording(p):
    from contio.stats.sentence import _p_clause

    assert _p_clause(p) == (", p = 0.200" if p > 0.001 else ", p < 0.001")


def test_a_degradation_never_exceeds_100_percent():
    # Issue 12 saw "75% (95% CI 59% to 106%)": two mixed repetitions (225, 275 ops/s)
    # whose mean is not told apart from 0, so Fieller's set reached below a ratio of 0.
    mixed = degradation([225.0, 275.0], [945.0, 1000.0, 1055.0], "read")
    assert mixed.high == 1.0 and mixed.low == pytest.approx(0.589, abs=0.001)
    assert degradation_sentence(mixed) == (
        "read loses 75% (95% CI 59% to 100%; read in the mix is not distinguishable from 0) "
        "of its standalone throughput, p < 0.001"
    )
    unbounded = degradation([500.0, 520.0, 480.0], [1200.0, 60.0, 1500.0], "write")
    assert degradation_sentence(unbounded).startswith(
        "write loses 46% (interval unbounded: write alone is not distinguishable from 0) of its"
    )


def test_a_value_short_of_100_percent_never_prints_as_100():
    # 993 ops/s against 2.8 M is 99.96% slower, not stopped: "100.0%" would say it was.
    assert magnitude_with_interval(0.9996, 0.9995, 0.9997, 0.95) == "99.96% ± 0.01%"
    assert magnitude_with_interval(0.9994, 0.9992, 0.9996, 0.95) == "99.94% ± 0.02%"
    assert magnitude_with_interval(0.75, 0.59, 1.0, 0.95) == "75% (95% CI 59% to 100%)"
