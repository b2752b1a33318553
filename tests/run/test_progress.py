"""The live display: current cell and repetition, its ops/s so far, cells done, ETA.

The clock is the module's `time.monotonic`, replaced by a counter the test moves, so
the ETA is checked as arithmetic, not as a duration measured on a busy machine.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.run import progress as progress_module
from contio.run.pricing import estimates
from contio.run.progress import RunProgress
from contio.run.stopping import repetitions_for

SPEC = """
name: p
factors: {target: [null], workload: [workloadc, workloada], threads: [1, 2]}
stop: {rule: fixed-time, seconds: 10, repetitions: 3}
properties: {recordcount: 1000}
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", fake)
    return fake


def display(terminal: bool) -> tuple[RunProgress, list, dict, io.StringIO]:
    spec = parse_spec_text(SPEC, "p.yaml", Path.cwd())
    cells = expand(spec)
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=300)
    planned = {key: low for key, (low, _) in estimates(cells, spec).items()}
    return RunProgress(cells, spec, console), cells, planned, out


def test_the_eta_scales_the_plan_by_how_fast_finished_cells_went(clock):
    shown, cells, planned, out = display(terminal=False)
    total = sum(planned.values())  # nothing finished yet: the plan's own estimate
    assert shown._eta() == f"ETA {int(total // 60)}:{int(total % 60):02d}"
    clock.now += 2 * planned[cells[0].key]  # the first cell took twice its estimate
    shown.cell_done(cells[0])
    remaining = 2 * sum(planned[c.key] for c in cells[1:])
    expected = f"ETA {int(remaining // 60)}:{int(remaining % 60):02d}"
    assert out.getvalue().splitlines()[-1] == f"cell 1/4 done · {expected}"
    # A skipped cell leaves the remaining estimate and the pace alone.
    shown.cell_skipped(cells[1], "backend unavailable")
    remaining -= 2 * planned[cells[1].key]
    assert shown._eta() == f"ETA {int(remaining // 60)}:{int(remaining % 60):02d}"
    for cell in cells[2:]:
        shown.cell_done(cell)
    assert out.getvalue().splitlines()[-1] == "cell 4/4 done · ETA 0:00"


def test_cells_done_in_an_earlier_session_do_not_set_the_pace(clock):
    shown, cells, planned, _ = display(terminal=False)
    clock.now += 500.0
    shown.cell_done(cells[0], already=True)  # resumed: took no time in this session
    remaining = sum(planned[c.key] for c in cells[1:])
    assert shown._eta() == f"ETA {int(remaining // 60)}:{int(remaining % 60):02d}"


def test_the_live_line_shows_cell_repetition_ci_and_ops_per_second_so_far(clock):
    shown, cells, _, _ = display(terminal=True)
    with shown:
        shown.start_repetition(cells[1], 3, [1000.0, 1100.0])
        shown.start_phase(cells[1], 3, "run")
        shown.status(0.0)  # before the engines' first status line: nothing to show yet
        [task] = shown._progress.tasks
        assert task.description.startswith(f"cell 2/4 {cells[1].label} · rep 3/3 · CI ±")
        assert task.description.endswith(" · run")
        shown.status(123456.4)
        assert task.description.endswith("123,456 ops/s so far")
        ci = 100 * 12.706 * (70.71 / 2**0.5) / 1050.0  # t(0.975, 1) · s/√n over the mean
        assert f"CI ±{ci:.1f}%" in task.description
        shown.cell_done(cells[1])
        assert task.completed == 1 and task.fields["eta"].startswith("ETA ")


def test_an_adaptive_cell_shows_how_many_repetitions_its_spread_needs(clock):
    text = SPEC.replace(
        "stop: {rule: fixed-time, seconds: 10, repetitions: 3}",
        "stop: {rule: adaptive, seconds: 10, ci_target: 0.02, max_repetitions: 30}",
    )
    spec = parse_spec_text(text, "p.yaml", Path.cwd())
    cells = expand(spec)
    shown = RunProgress(cells, spec, Console(file=io.StringIO(), force_terminal=True, width=300))
    with shown:
        shown.start_repetition(cells[0], 4, [100.0, 108.0, 95.0])
        shown.start_phase(cells[0], 4, "run")
        [task] = shown._progress.tasks
        needed = repetitions_for([100.0, 108.0, 95.0], 0.02)
        assert f"(≈ {needed} reps for ±2%)" in task.description
        assert "rep 4 (until ±2%, 3–30)" in task.description


def test_an_interleaved_run_shows_its_round_and_paces_the_eta_by_repetitions(clock):
    shown, cells, planned, out = display(terminal=False)
    shown.start_round(2)
    shown.start_repetition(cells[1], 2, [1000.0])
    shown.start_phase(cells[1], 2, "run")
    assert out.getvalue().splitlines()[-1].startswith(f"round 2/3 · cell 2/4 {cells[1].label}")
    # One repetition of three took twice its share: the rest is priced twice as long,
    # before any cell is done (an interleaved run's cells finish in the last rounds).
    share = planned[cells[0].key] / 3
    clock.now += 2 * share
    shown.repetition_done(cells[0])
    remaining = 2 * (sum(planned.values()) - share)
    assert shown._eta() == f"ETA {int(remaining // 60)}:{int(remaining % 60):02d}"
