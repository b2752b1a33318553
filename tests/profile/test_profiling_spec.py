"""The spec `contio profile` runs: one application, its container counts set, its claims
dropped; a spec of several applications is refused naming what varies."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import SpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.profile.application import profiling_spec

ONE = """
name: kv
factors: {target: [lsm], workload: [workloadc], threads: [2]}
stop: {rule: fixed-ops, operations: 200, repetitions: 2}
properties: {recordcount: 50}
"""


def _spec(text: str):
    return parse_spec_text(text, "kv.yaml", Path.cwd())


def test_one_application_runs_at_each_count_in_order():
    spec = profiling_spec(_spec(ONE), [4, 1, 2, 2], "kv.yaml")
    cells = expand(spec)
    assert sorted(c.level["containers"] for c in cells) == [1, 2, 4]
    assert {c.level["target"] for c in cells} == {"lsm"}
    assert all(len(c.members) == c.level["containers"] for c in cells)


@pytest.mark.parametrize(
    ("text", "field", "says"),
    [
        (ONE.replace("[workloadc]", "[workloadc, workloada]"), "factors", "workload vary"),
        (ONE.replace("threads: [2]", "threads: [1, 2]"), "factors", "threads vary"),
    ],
)
def test_a_spec_of_several_applications_is_refused(text, field, says):
    with pytest.raises(SpecError) as caught:
        profiling_spec(_spec(text), [1, 2], "kv.yaml")
    assert caught.value.path == field and says in str(caught.value)


@pytest.mark.parametrize(("counts", "says"), [([0, 1], "at least 1"), ([2, 4], "must include 1")])
def test_counts_below_one_or_without_one_are_refused(counts, says):
    with pytest.raises(SpecError) as caught:
        profiling_spec(_spec(ONE), counts, "kv.yaml")
    assert caught.value.path == "--containers" and says in str(caught.value)
