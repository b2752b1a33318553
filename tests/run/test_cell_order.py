"""The cell order: random, interleaved rounds or counterbalanced passes from a seed,
recorded in the results, kept by `--resume`; load groups stay whole; bad `order` values
name the field."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest
from rich.console import Console

from contio.errors import Interrupted, InvalidSpecError
from contio.experiment.cell_order import (
    counterbalanced_passes,
    execution_order,
    interleaved_rounds,
    repetition_sequence,
)
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import Cell, expand
from contio.experiment.parts import CellOrder
from contio.findings.order_check import order_confounded
from contio.results.folder import load
from contio.results.index import ResultsIndex
from contio.run.pricing import ORDER_COST_LIMIT, estimates, order_cost, resolved_order
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
        (
            "{mode: shuffled}",
            "order.mode",
            "allowed: auto, interleaved, counterbalanced, random or fixed",
        ),
        ("{seed: -1}", "order.seed", "-1 is too small: must be at least 0"),
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


TWO_GROUPS = """
name: rounds
factors:
  target: [lsm, btree]            # one load group per target
  workload: [workloadc, workloada]
  threads: [1, 2, 4]
stop: {rule: fixed-ops, operations: 200, repetitions: 4}
properties: {recordcount: 50}
"""


def two_groups() -> list[Cell]:
    return expand(parse_spec_text(TWO_GROUPS, "rounds.yaml", Path.cwd()))


def rounds_of(cells: list[Cell], seed: int, count: int) -> list[list[Cell]]:
    drawn = interleaved_rounds(cells, seed)
    return [next(drawn) for _ in range(count)]


def test_every_round_lists_every_cell_once_load_groups_whole_read_only_first():
    cells = two_groups()
    for seed in range(10):
        for one in rounds_of(cells, seed, 4):
            assert sorted(c.index for c in one) == [c.index for c in cells]
            assert len(_groups(one)) == 2  # a group's cells stay together…
            for key in _groups(one):
                part = [c.read_only for c in one if c.load_key() == key]
                assert part == sorted(part, reverse=True)  # …its read-only cells first


def test_each_cell_gets_one_repetition_per_round_spread_over_the_run():
    cells = two_groups()
    sequence = repetition_sequence(cells, "interleaved", 3, 4)
    assert len(sequence) == 4 * len(cells)
    for cell in cells:
        positions = [i for i, c in enumerate(sequence) if c.key == cell.key]
        # One repetition in each round (rounds are len(cells) long), never back to back
        # within one: the cell's repetitions reach from the first round to the last.
        assert [p // len(cells) for p in positions] == [0, 1, 2, 3]
    back_to_back = repetition_sequence(cells, "random", 3, 4)
    assert all(len({c.key for c in back_to_back[i : i + 4]}) == 1 for i in range(0, 48, 4))


def test_the_second_round_of_a_pair_runs_the_first_backwards_and_pairs_are_drawn_afresh():
    cells = two_groups()
    first, second, third, fourth = rounds_of(cells, 5, 4)
    assert _groups(second) == _groups(first)[::-1]
    for key in _groups(first):
        mine = [c for c in first if c.load_key() == key]
        theirs = [c for c in second if c.load_key() == key]
        reading = [c for c in mine if c.read_only]
        writing = [c for c in mine if not c.read_only]
        assert theirs == reading[::-1] + writing[::-1]
    assert _groups(fourth) == _groups(third)[::-1]
    # Across seeds, the group order (and the cells' order) of a pair's first round varies.
    firsts = {tuple(c.index for c in rounds_of(cells, seed, 3)[2]) for seed in range(20)}
    assert len(firsts) > 10
    group_orders = {tuple(_groups(rounds_of(cells, seed, 1)[0])) for seed in range(20)}
    assert len(group_orders) == 2


def test_the_seed_reproduces_the_rounds():
    cells = two_groups()
    runs = [[[c.index for c in r] for r in rounds_of(cells, 11, 6)] for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0] != [[c.index for c in r] for r in rounds_of(cells, 12, 6)]
    assert [c.index for c in execution_order(cells, "interleaved", 11)] == runs[0][0]


def _as_run(sequence: list[Cell]) -> pd.DataFrame:
    """Run rows of `sequence` (one repetition each, in that order)."""
    rows, done = [], dict.fromkeys((c.key for c in sequence), 0)
    for position, cell in enumerate(sequence):
        done[cell.key] += 1
        rows.append(
            {**cell.level, "workload": str(cell.level["workload"]), "cell_key": cell.key,
             "cell_index": cell.index, "session": 1, "repetition": done[cell.key],
             "container": 1, "status": "ok", "started_at": f"2026-11-28T{position:08d}Z"}
        )  # fmt: skip
    return pd.DataFrame(rows)


def _tau(sequence: list[Cell], factor: str) -> float:
    checks = {c.factor: c for c in order_confounded(_as_run(sequence), {})}
    return checks[factor].measured["kendall_tau"]


@pytest.mark.parametrize("rounds", [3, 4, 5, 6])
def test_a_factor_that_splits_the_load_groups_is_not_confounded_with_interleaved_rounds(rounds):
    cells = two_groups()
    for seed in range(8):
        # Random: one target's cells all run before the other's, every time.
        assert abs(_tau(repetition_sequence(cells, "random", seed, rounds), "target")) == 1
        interleaved = repetition_sequence(cells, "interleaved", seed, rounds)
        # Each pair of rounds mirrors its order: an even number of rounds balances
        # exactly, an odd one leaves a ninth (3 rounds) or less of the pairs over.
        assert abs(_tau(interleaved, "target")) <= (0 if rounds % 2 == 0 else 1 / rounds**2)
        assert abs(_tau(interleaved, "threads")) < 0.2
        # Counterbalanced passes (A B | B A): even repetitions balance exactly, odd ones
        # leave a third (3) or a fifth (5) of the pairs over.
        balanced = repetition_sequence(cells, "counterbalanced", seed, rounds)
        assert abs(_tau(balanced, "target")) <= (0 if rounds % 2 == 0 else 1 / rounds + 1e-9)


def test_counterbalanced_passes_mirror_each_other_and_keep_load_groups_whole():
    cells = two_groups()
    for seed in range(10):
        first, second = counterbalanced_passes(cells, seed)
        assert first == execution_order(cells, "random", seed)  # the first pass is random's
        assert _groups(second) == _groups(first)[::-1]
        for key in _groups(first):
            mine = [c for c in first if c.load_key() == key]
            reading = [c for c in mine if c.read_only]
            writing = [c for c in mine if not c.read_only]
            assert [c for c in second if c.load_key() == key] == reading[::-1] + writing[::-1]
    sequence = repetition_sequence(cells, "counterbalanced", 4, 5)
    for cell in cells:
        positions = [i for i, c in enumerate(sequence) if c.key == cell.key]
        half = len(cells) * 3  # the first pass: three repetitions of each cell
        assert sum(p < half for p in positions) == 3 and len(positions) == 5


ROUNDS_RUN = """
name: rounds
backend: {{type: local-dir, path: {data}}}
factors:
  target: [null]
  workload: [workloadc, workloada]
  properties: {{recordcount: [40, 50]}}   # two data sets: two load groups
stop: {{rule: fixed-ops, operations: 200, repetitions: 3}}
order: {{mode: interleaved, seed: 9}}
"""


class StopAfterRepetitions(RunProgress):
    """Records (cell, round) per completed repetition; interrupts after `limit` of them."""

    def __init__(self, cells, spec, seen: list[tuple[int, int]], limit: int | None):
        super().__init__(cells, spec, Console(file=io.StringIO()))
        self.seen, self.limit, self.round = seen, limit, 0

    def start_round(self, number: int) -> None:
        super().start_round(number)
        self.round = number

    def repetition_done(self, cell: Cell) -> None:
        super().repetition_done(cell)
        self.seen.append((cell.index, self.round))
        if self.limit is not None and len(self.seen) == self.limit:
            raise Interrupted("stop here")


def test_an_interleaved_run_gives_each_cell_a_repetition_per_round_and_resumes_mid_round(
    tmp_path, engine
):
    data = tmp_path / "data"
    data.mkdir()
    text = ROUNDS_RUN.format(data=data)
    spec = parse_spec_text(text, "rounds.yaml", tmp_path)
    cells = expand(spec)
    expected = [c.index for c in repetition_sequence(cells, "interleaved", 9, 3)]
    seen: list[tuple[int, int]] = []
    factory = lambda c, s: StopAfterRepetitions(c, s, seen, 6)
    with pytest.raises(Interrupted):
        Runner(spec, text, tmp_path / "out", progress=factory).run()
    [folder] = list((tmp_path / "out").iterdir())
    index = ResultsIndex.open(folder)
    try:
        assert index.meta("order") == {"mode": "interleaved", "seed": 9}
        statuses = {c["cell_index"]: c["status"] for c in index.cells()}
    finally:
        index.close()
    assert [i for i, _ in seen] == expected[:6]
    assert [r for _, r in seen] == [1, 1, 1, 1, 2, 2]
    # No cell is left `running`: the ones with rounds to go are interrupted.
    assert set(statuses.values()) == {"interrupted"}

    more: list[tuple[int, int]] = []
    factory = lambda c, s: StopAfterRepetitions(c, s, more, None)
    Runner(spec, text, tmp_path / "out", resume=folder, progress=factory).run()
    # The resumed run goes on in round 2 with the cells that had not had it yet.
    assert [i for i, _ in more] == expected[6:]
    assert [r for _, r in more] == [2, 2, 3, 3, 3, 3]
    runs = load(folder).sort_values("started_at")
    assert list(runs["cell_index"]) == expected
    assert runs.groupby("cell_index")["repetition"].apply(list).to_dict() == {
        i: [1, 2, 3] for i in range(1, 5)
    }
    assert list(runs["session"]) == [1] * 6 + [2] * 6  # what ran before is kept
    index = ResultsIndex.open(folder)
    try:
        assert {c["status"] for c in index.cells()} == {"done"}
    finally:
        index.close()
    assert list(data.iterdir()) == []  # data released


def _spec(text: str):
    return parse_spec_text(text, "rounds.yaml", Path.cwd())


def test_plan_prices_the_loads_an_interleaved_order_adds_and_auto_chooses_by_them():
    # Writing cells under `load.reuse: auto` reload every repetition whatever the order:
    # interleaving costs nothing, so `auto` interleaves.
    writing = _spec(TWO_GROUPS)
    cost = order_cost(expand(writing), writing)
    assert cost.interleaved.loads == cost.random.loads
    assert cost.extra("interleaved") == pytest.approx(0)
    assert resolved_order(expand(writing), writing) == CellOrder(mode="interleaved")
    # Read-only groups: random loads each group once, interleaved once a round (less the
    # group a pair's second round starts with, still loaded from the first).
    reading = _spec(
        TWO_GROUPS.replace("[workloadc, workloada]", "[workloadc]").replace(
            "recordcount: 50", "recordcount: 500000"
        )
    )
    cells = expand(reading)
    cost = order_cost(cells, reading)
    assert cost.random.loads == 2
    assert cost.interleaved.loads in (2 * 4 - 2, 2 * 4 - 3)  # 4 rounds, 2 pairs
    # Counterbalanced: A B | B A, the group at the passes' seam stays loaded.
    assert cost.counterbalanced.loads == 3
    assert cost.extra("interleaved") > cost.extra("counterbalanced") > ORDER_COST_LIMIT
    assert resolved_order(cells, reading).mode == "random"
    assert "interleaved rounds: 6 loads against random's 2" in cost.text() or (
        "interleaved rounds: 5 loads against random's 2" in cost.text()
    )
    assert "counterbalanced passes: 3 loads against random's 2" in cost.text()
    # Loads cheap enough that one more per group is within the limit, a load per round
    # is not: `auto` counterbalances.
    cheaper = _spec(
        TWO_GROUPS.replace("[workloadc, workloada]", "[workloadc]")
        .replace("recordcount: 50", "recordcount: 200000")
        .replace("operations: 200", "operations: 40000")
    )
    cheap_cost = order_cost(expand(cheaper), cheaper)
    assert cheap_cost.extra("interleaved") > ORDER_COST_LIMIT >= cheap_cost.extra("counterbalanced")
    assert resolved_order(expand(cheaper), cheaper).mode == "counterbalanced"
    pinned = reading.model_copy(update={"order": CellOrder(mode="interleaved")})
    assert resolved_order(cells, pinned) == CellOrder(mode="interleaved")  # as asked
    # The estimates charge those loads (the same seed prices both: none given).
    assert sum(high for _, high in estimates(cells, pinned).values()) == pytest.approx(
        sum(cost.interleaved.seconds.values()), rel=0.05
    )


class RecordsPasses(StopAfterRepetitions):
    """Records (cell, pass) per completed repetition; interrupts after `limit` of them."""

    def start_pass(self, number: int) -> None:
        super().start_pass(number)
        self.round = number


def test_a_counterbalanced_run_goes_in_two_mirrored_passes_and_resumes_where_it_stopped(
    tmp_path, engine
):
    data = tmp_path / "data"
    data.mkdir()
    text = ROUNDS_RUN.format(data=data).replace("mode: interleaved", "mode: counterbalanced")
    spec = parse_spec_text(text, "rounds.yaml", tmp_path)
    cells = expand(spec)
    first, second = counterbalanced_passes(cells, 9)
    # 3 repetitions: two in the first pass, one in the second, run backwards.
    expected = [c.index for c in first for _ in range(2)] + [c.index for c in second]
    assert expected == [c.index for c in repetition_sequence(cells, "counterbalanced", 9, 3)]
    seen: list[tuple[int, int]] = []
    with pytest.raises(Interrupted):
        Runner(spec, text, tmp_path / "out",
               progress=lambda c, s: RecordsPasses(c, s, seen, 5)).run()  # fmt: skip
    [folder] = list((tmp_path / "out").iterdir())
    assert [i for i, _ in seen] == expected[:5]
    more: list[tuple[int, int]] = []
    Runner(spec, text, tmp_path / "out", resume=folder,
           progress=lambda c, s: RecordsPasses(c, s, more, None)).run()  # fmt: skip
    assert [i for i, _ in more] == expected[5:]
    assert [p for _, p in seen + more] == [1] * 8 + [2] * 4
    runs = load(folder).sort_values("started_at")
    assert list(runs["cell_index"]) == expected
    checks = {c.factor: c for c in order_confounded(runs, {})}
    assert checks  # two data sets: the factor that splits the load groups is checked
    index = ResultsIndex.open(folder)
    try:
        assert index.meta("order") == {"mode": "counterbalanced", "seed": 9}
        assert {c["status"] for c in index.cells()} == {"done"}
    finally:
        index.close()
    assert list(data.iterdir()) == []  # data released


def test_auto_is_priced_from_what_earlier_runs_measured_as_plan_prices_it(
    tmp_path, engine, monkeypatch
):
    from contio.run import results_setup as runner_module
    from contio.run.measured_prices import MeasuredPhases

    data = tmp_path / "data"
    data.mkdir()
    text = ROUNDS_RUN.format(data=data).replace(
        "order: {mode: interleaved, seed: 9}", "order: {mode: auto, seed: 9}\nload: {reuse: always}"
    )
    spec = parse_spec_text(text, "rounds.yaml", tmp_path)
    cells = expand(spec)
    assert resolved_order(cells, spec).mode == "interleaved"  # at the assumed rates
    # Earlier runs of this spec measured loads of 20 minutes: a load per round is too
    # dear, and so is one more per group; `contio plan` would say random, and so must the run.
    slow = MeasuredPhases({(c.key, p): (1200.0 if p == "load" else 1.0) for c in cells
                           for p in ("load", "run")}, [])  # fmt: skip
    assert resolved_order(cells, spec, measured=slow).mode == "random"
    seen_dir = []

    def measured(results_dir, fingerprint):
        seen_dir.append(results_dir)
        return slow

    monkeypatch.setattr(runner_module, "measured_phases", measured)
    Runner(spec, text, tmp_path / "out").run()
    [folder] = list((tmp_path / "out").iterdir())
    index = ResultsIndex.open(folder)
    try:
        assert index.meta("order") == {"mode": "random", "seed": 9}
    finally:
        index.close()
    assert seen_dir == [tmp_path / "out"]
