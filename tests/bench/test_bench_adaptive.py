"""The adaptive benchmark: its two specs differ only in their stopping rule, and each
method's time to a width is read off its per-repetition timeline as the rule would."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmarks import adaptive
from contio.experiment.load import parse_spec_text
from contio.stats import confidence_interval


def test_the_two_methods_run_the_same_cell(tmp_path: Path):
    specs = {
        method: parse_spec_text(
            adaptive._spec_text("null", adaptive._stop(operations, cap), 1000, tmp_path),
            method,
            tmp_path,
        )
        for method, operations, cap in (("fixed", 100_000, 40), ("adaptive", 20_000, 60))
    }
    fixed, rule = specs["fixed"], specs["adaptive"]
    assert fixed.stop.engine_properties() == {"operationcount": "100000", "maxexecutiontime": "0"}
    assert rule.stop.adaptive and rule.stop.ci_target == fixed.stop.ci_target == 0.02
    assert (fixed.stop.max_repetitions, rule.stop.max_repetitions) == (40, 60)
    assert fixed.model_dump(exclude={"stop"}) == rule.model_dump(exclude={"stop"})


def test_time_to_a_width_is_the_first_checked_repetition_within_it():
    timeline = adaptive.Timeline(
        throughputs=[100.0, 130.0, 101.0, 99.0, 100.5, 100.2, 99.8],
        ended_at=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
    )
    widths = [timeline.width(n) for n in range(1, 8)]
    assert math.isinf(widths[0])
    assert widths[3] == pytest.approx(
        confidence_interval(timeline.throughputs[:4]).relative_half_width
    )
    # The first repetition from the third on whose interval is within 20%.
    wanted = next(n for n in range(3, 8) if widths[n - 1] <= 0.20)
    assert timeline.time_to(0.20) == (float(wanted), wanted)
    assert timeline.time_to(0.0001) is None
    assert timeline.final_width == widths[-1]
