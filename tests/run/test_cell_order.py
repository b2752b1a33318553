"""The cell order: random from a seed by default, recorded in the results, kept by
`--resume`; load groups stay whole; bad `order` values name the field."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from contio.errors import Interrupted, InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import Cell, execution_order, expand
from contio.results.index import ResultsIndex
from contio.run.progress import RunProgress
from contio.run.runner import Runner

SPEC = """
name: order
backend: {{type: local-dir, path: {data}}}
factors:
  target: [null]
  workload: [workloadc, workloada]
  threads: [1, 2, 3]
stop: {{rule: fixed-ops, operations: 200, repetitions: 1}}
properties: {{recordcount: 50}}
{order}
"""


def spec_of(tmp_path, order: str = ""):
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    text = SPEC.format(data=data, order=order)
    return parse_spec_text(text, "order.yaml", tmp_path), text


@pytest.mark.parametrize(
    ("order", "field", "says"),
    [
        ("{mode: shuffled}", "order.mode", "allowed: auto, interleaved, random or fixed"),
        ("{seed: -1}", "order.seed", "greater than or equal to 0"),
        ("{mode: random, sead: 3}", "order.sead", "allowed keys here: mode, seed"),
    ],
)
def test_a_bad_order_names_the_field_and_what_is_allowed(tmp_path, order, field, says):
    with pytest.raises(InvalidSpecError) as caught:
        spec_of(tmp_path, f"order: {order}")
    assert field in str(caught.value) and says in str(caught.value)


def _groups(cells: list[Cell]) -> list[tuple]:
    """The load groups in the order they come, one entry per run of equal keys."""
    runs: list[tuple] = []
    for cell in cells:
        if not runs or runs[-1] != cell.load_key():
            runs.append(cell.load_key())
    return runs


def test_a_random_order_is_a_seeded_shuffle_that_keeps_load_groups_whole(tmp_path):
    spec, _ = spec_of(tmp_path)
    cells = expand(spec)
    orders = {tuple(c.index for c in execution_order(cells, "random", s)) for s in range(20)}
    assert len(orders) > 5  # the seed changes the order…
    same = [c.index for c in execution_order(cells, "random", 11)]
    assert same == [c.index for c in execution_order(cells, "random", 11)]  # …and fixes it
    assert sorted(same) == [c.index for c in cells]
    for seed in range(20):
        ordered = execution_order(cells, "random", seed)
        assert len(_groups(ordered)) == len(set(_groups(cells)))  # one load per group
    assert execution_order(cells, "fixed", None) == cells


class StopAfter(RunProgress):
    """Records the cells as they end; interrupts the run after `limit` ran."""

    def __init__(self, cells, spec, seen: list[tuple[int, bool]], limit: int | None):
        super().__init__(cells, spec, Console(file=io.StringIO()))
        self.seen, self.limit = seen, limit

    def cell_done(self, cell: Cell, already: bool = False) -> None:
        super().cell_done(cell, already)
        self.seen.append((cell.index, already))
        if self.limit is not None and sum(not a for _, a in self.seen) == self.limit:
            raise Interrupted("stop here")


def test_the_seed_is_recorded_and_a_resume_goes_on_in_the_same_order(tmp_path, engine):
    spec, text = spec_of(tmp_path, "order: {mode: random}")
    seen: list[tuple[int, bool]] = []
    runner = Runner(spec, text, tmp_path / "out", progress=lambda c, s: StopAfter(c, s, seen, 2))
    with pytest.raises(Interrupted):
        runner.run()
    [folder] = list((tmp_path / "out").iterdir())
    index = ResultsIndex.open(folder)
    try:
        recorded = index.meta("order")
    finally:
        index.close()
    assert recorded["mode"] == "random" and isinstance(recorded["seed"], int)
    assert json.loads((folder / "spec.json").read_text())["order"] == recorded
    expected = [c.index for c in execution_order(expand(spec), "random", recorded["seed"])]
    assert [i for i, _ in seen] == expected[:2]

    more: list[tuple[int, bool]] = []
    resumed = Runner(
        spec, text, tmp_path / "out", resume=folder,
        progress=lambda c, s: StopAfter(c, s, more, None),
    )  # fmt: skip
    resumed.run()
    assert more == [(i, n < 2) for n, i in enumerate(expected)]


def test_a_given_seed_is_used_and_fixed_runs_in_index_order(tmp_path, engine):
    spec, text = spec_of(tmp_path, "order: {mode: fixed}")
    seen: list[tuple[int, bool]] = []
    with pytest.raises(Interrupted):
        Runner(spec, text, tmp_path / "out", progress=lambda c, s: StopAfter(c, s, seen, 2)).run()
    assert [i for i, _ in seen] == [1, 2]
    spec, _ = spec_of(tmp_path, "order: {seed: 5}")
    assert spec.order.seed == 5 and spec.order.mode == "auto"
