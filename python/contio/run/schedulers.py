"""The order a run's cells take, one scheduler per order mode
(`contio.experiment.matrix`): `fixed` and `random` run each cell's repetitions before the
next cell's; `interleaved` goes in rounds, each giving one repetition to every cell whose
stopping rule still wants one; `counterbalanced` in two mirrored passes, each cell running
half its repetitions in the first and the rest in the second. A resumed run passes over
what is done and goes on where it stopped (mid-round, mid-pass).

A cell is `running` from its first repetition until its stopping rule has enough
(`done`) or a repetition fails (`failed`); when the run stops early, every cell this
session left `running` becomes `interrupted`.
"""

from __future__ import annotations

from contio.experiment.cell_order import (
    counterbalanced_passes,
    execution_order,
    first_pass_repetitions,
    interleaved_rounds,
)
from contio.experiment.matrix import Cell
from contio.experiment.parts import CellOrder
from contio.experiment.spec import ExperimentSpec
from contio.run.cell_runner import CellRunner
from contio.run.run_session import RunSession
from contio.run.stopping import planned_repetitions


def run_cells(
    spec: ExperimentSpec,
    cells: list[Cell],
    order: CellOrder,
    session: RunSession,
    runner: CellRunner,
) -> None:
    """Every cell, in `order`."""
    if order.mode == "interleaved":
        assert order.seed is not None
        _in_rounds(cells, order.seed, session, runner)
    elif order.mode == "counterbalanced":
        assert order.seed is not None
        _in_passes(spec, cells, order.seed, session, runner)
    else:
        for cell in execution_order(cells, order.mode, order.seed):
            if session.index.cell_status(cell.key) == "done":
                session.progress.cell_done(cell, already=True)
                continue
            runner.run_cell(session, cell)


def _in_rounds(cells: list[Cell], seed: int, session: RunSession, runner: CellRunner) -> None:
    """Round n gives a repetition to each unfinished cell with fewer than n completed
    (`interleaved_rounds`), so a resumed run goes on mid-round."""
    pending = _unfinished(cells, session)
    started: set[str] = set()
    rounds = interleaved_rounds(cells, seed)
    number = 0
    try:
        while pending:
            number += 1
            session.progress.start_round(number)
            for cell in next(rounds):
                if cell.key in pending and runner.turn(session, cell, number, started):
                    del pending[cell.key]
    except BaseException:
        _interrupt_started(session, started)
        raise


def _in_passes(
    spec: ExperimentSpec, cells: list[Cell], seed: int, session: RunSession, runner: CellRunner
) -> None:
    """Two mirrored passes (`counterbalanced_passes`): in the first, each cell runs
    repetitions until it has half its fewest (`first_pass_repetitions`); in the second,
    run backwards, until its stopping rule has enough."""
    first, second = counterbalanced_passes(cells, seed)
    fewest, _ = planned_repetitions(spec.stop, spec.repetition_count)
    half = first_pass_repetitions(fewest)
    pending = _unfinished(cells, session)
    started: set[str] = set()
    try:
        for number, (ordered, most) in enumerate(((first, half), (second, None)), start=1):
            session.progress.start_pass(number)
            for cell in ordered:
                turn = 1
                while cell.key in pending and (most is None or turn <= most):
                    if runner.turn(session, cell, turn, started):
                        del pending[cell.key]
                    turn += 1
    except BaseException:
        _interrupt_started(session, started)
        raise


def _unfinished(cells: list[Cell], session: RunSession) -> dict[str, Cell]:
    """The cells not yet `done` (a resumed run's done ones are shown as such), by key."""
    pending: dict[str, Cell] = {}
    for cell in cells:
        if session.index.cell_status(cell.key) == "done":
            session.progress.cell_done(cell, already=True)
        else:
            pending[cell.key] = cell
    return pending


def _interrupt_started(session: RunSession, started: set[str]) -> None:
    """Every cell this session began and left `running` becomes `interrupted`."""
    for key in started:
        if session.index.cell_status(key) == "running":
            session.index.set_cell_status(
                key, "interrupted", "the run stopped before its last repetition"
            )
