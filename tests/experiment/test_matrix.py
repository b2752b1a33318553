"""Cells from factors: the factorial, explicit cells, exclusions, mixes, load groups."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand

BASE = """
name: m
factors:
  target: [null]
  workload: [workloada, workloadc]
  threads: [1, 4]
"""


def cells_of(text: str):
    return expand(parse_spec_text(text, "m.yaml", Path.cwd()))


def levels(cells, *keys):
    return [tuple(c.level[k] for k in keys) for c in cells]


def test_the_full_factorial_runs_read_only_cells_first_on_a_shared_load():
    cells = cells_of(BASE)
    assert [c.index for c in cells] == [1, 2, 3, 4]
    assert levels(cells, "workload", "threads") == [
        ("workloadc", 1),
        ("workloadc", 4),
        ("workloada", 1),
        ("workloada", 4),
    ]
    assert [c.read_only for c in cells] == [True, True, False, False]
    assert len({c.load_key() for c in cells}) == 1
    assert len({c.key for c in cells}) == 4


def test_exclusions_drop_matching_cells_and_typos_are_refused():
    cells = cells_of(BASE + "exclude:\n  - {workload: workloada, threads: 4}\n")
    assert levels(cells, "workload", "threads") == [
        ("workloadc", 1),
        ("workloadc", 4),
        ("workloada", 1),
    ]
    with pytest.raises(InvalidSpecError, match=r"exclude\[0\]\.threads: 5 is not a level"):
        cells_of(BASE + "exclude:\n  - {threads: 5}\n")
    with pytest.raises(InvalidSpecError, match=r"exclude\[0\]\.thread: not a factor"):
        cells_of(BASE + "exclude:\n  - {thread: 4}\n")


def test_explicit_cells_cross_their_lists_and_need_every_factor_with_several_levels():
    text = (
        BASE
        + "cells:\n  - {workload: workloadc, threads: [1, 4]}\n  - {workload: workloada, threads: 4}\n"
    )
    assert levels(cells_of(text), "workload", "threads") == [
        ("workloadc", 1),
        ("workloadc", 4),
        ("workloada", 4),
    ]
    with pytest.raises(InvalidSpecError, match=r"cells\[0\]\.threads: required"):
        cells_of(BASE + "cells:\n  - {workload: workloadc}\n")


def test_a_mix_runs_each_member_containers_times():
    text = """
name: m
mixes:
  pair: [{workload: workloadc}, {workload: heavy-update, threads: 2}]
factors:
  mix: [pair]
  containers: [2]
  threads: [1]
"""
    [cell] = cells_of(text)
    assert [(m.workload.name, m.threads) for m in cell.members] == [
        ("workloadc", 1),
        ("workloadc", 1),
        ("heavy-update", 2),
        ("heavy-update", 2),
    ]
    assert not cell.read_only


def test_property_factors_reach_the_engine_and_split_the_data_sets():
    text = (
        BASE.replace("threads: [1, 4]", "threads: [1]") + "  properties: {fieldlength: [10, 20]}\n"
    )
    cells = cells_of(text)
    assert {dict(c.members[0].properties)["fieldlength"] for c in cells} == {"10", "20"}
    assert len({c.load_key() for c in cells}) == 2
    # Cells of one data set stay together.
    keys = [c.load_key() for c in cells]
    assert keys == sorted(keys, key=keys.index)


def test_a_mix_whose_file_member_names_no_target_has_no_target_label():
    """Issue 14: such cells said `target=null` while their members ran `lsm` and fio."""
    text = """
name: m
mixes:
  pair: [{workload: heavy-update, target: lsm},
         {workload: {kind: fio, name: rr, job: {rw: randread, bs: 4k, size: 1m}}}]
factors:
  mix: [pair]
"""
    [cell] = expand(parse_spec_text(text, "m.yaml", Path.cwd()))
    assert "target" not in cell.level and "target=" not in cell.label
    assert cell.members[0].target == "lsm"
