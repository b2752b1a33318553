"""Stopping rules and the warm-up: when a cell has enough, what a repetition measured."""

from __future__ import annotations

import json

import pytest

from contio.engine.result import parse_result
from contio.experiment.parts import StopRule
from contio.results.steady_state import steady_throughput
from contio.run.stopping import planned_repetitions, wants_another
from contio.stats import confidence_interval
from engine_documents import document, operation


def test_fixed_rules_repeat_a_set_number_of_times():
    rule = StopRule(rule="fixed-ops", operations=10)
    assert wants_another(rule, 3, [1.0, 2.0])
    assert not wants_another(rule, 3, [1.0, 2.0, 3.0])
    assert planned_repetitions(rule, 3) == (3, 3)


def test_the_rule_decides_which_size_the_engine_gets():
    # A profile turning fixed-ops into fixed-time leaves `operations` beside `seconds`.
    merged = StopRule(rule="fixed-time", seconds=5, operations=100000)
    assert merged.engine_properties() == {"operationcount": "0", "maxexecutiontime": "5"}
    ops = StopRule(rule="fixed-ops", seconds=5, operations=100000)
    assert ops.engine_properties() == {"operationcount": "100000", "maxexecutiontime": "0"}
    assert StopRule(rule="workload", seconds=5).engine_properties() == {}


def test_the_adaptive_rule_stops_once_the_interval_is_narrow_enough():
    rule = StopRule(
        rule="adaptive", seconds=1, ci_target=0.02, min_repetitions=3, max_repetitions=6
    )
    tight = [1000.0, 1001.0, 999.0]
    assert confidence_interval(tight).relative_half_width < 0.02
    assert wants_another(rule, 0, tight[:2])  # below the minimum, however tight
    assert not wants_another(rule, 0, tight)
    wide = [1000.0, 1500.0, 700.0]
    assert confidence_interval(wide).relative_half_width > 0.02
    assert wants_another(rule, 0, wide)
    assert not wants_another(rule, 0, wide * 2)  # the maximum ends it anyway
    assert planned_repetitions(rule, 0) == (3, 6)


def result_with(per_second: list[int], runtime_ms: float):
    doc = document({"READ": operation([10, 20])})
    doc["timeseries"] = [{"t": i, "ops": n} for i, n in enumerate(per_second, start=1)]
    doc["runtime_ms"] = runtime_ms
    doc["throughput_ops_per_sec"] = sum(per_second) / (runtime_ms / 1000)
    return parse_result(json.dumps(doc), "doc")


def test_the_warm_up_seconds_are_left_out():
    result = result_with([100, 1000, 1000, 500], runtime_ms=3500)
    steady = steady_throughput(result, warmup_seconds=1)
    assert steady.warmup_excluded_s == 1
    assert steady.ops_per_sec == pytest.approx(2500 / 2.5)
    assert steady_throughput(result, 0).ops_per_sec == pytest.approx(2600 / 3.5)


def test_a_phase_shorter_than_its_warm_up_is_taken_whole_and_says_so():
    result = result_with([100, 200], runtime_ms=1500)
    steady = steady_throughput(result, warmup_seconds=1)
    assert steady.warmup_excluded_s == 0
    assert steady.ops_per_sec == pytest.approx(result.throughput_ops_per_sec)


def test_the_repetitions_a_spread_needs_are_the_first_n_whose_interval_is_narrow_enough():
    from scipy import stats as scipy_stats

    from contio.run.stopping import repetitions_for
    from contio.stats import mean as mean_of
    from contio.stats import stdev

    seen = [100.0, 108.0, 95.0, 103.0, 99.0]  # s ≈ 4.8% of the mean
    n = repetitions_for(seen, 0.02)
    ratio = stdev(seen) / (0.02 * mean_of(seen))

    def within(k: int) -> bool:
        return scipy_stats.t.ppf(0.975, k - 1) * ratio <= k**0.5

    assert within(n) and not within(n - 1)
    assert 20 < n < 40
    assert repetitions_for([100.0], 0.02) is None
    assert repetitions_for([100.0, 100.0], 0.02) == 2  # no spread: two already suffice
