"""The live progress display of a run: current cell and repetition (and round, in an
interleaved order), its ops/s so far, cells done out of all, and the ETA.

Drawn on stderr so stdout keeps only the results table. On a terminal it is a live
bar redrawn as the engines report (about once a second); elsewhere (CI, pipes) each
phase and each cell's end prints one plain line. The ETA scales the plan's estimate
of what remains (`contio.run.pricing`, in the run's order) by how fast the finished
repetitions went against their own estimate: each completed repetition counts for its
share of its cell's estimate, so an interleaved run, whose cells finish only in the
last rounds, has an ETA from its first round on.
"""

from __future__ import annotations

import math
import time
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from typing_extensions import Self

from contio.experiment.matrix import Cell
from contio.experiment.spec import ExperimentSpec
from contio.run.pricing import estimates
from contio.run.stopping import planned_repetitions, projected_repetitions
from contio.stats import confidence_interval


class RunProgress:
    """Progress over the cells of an experiment."""

    def __init__(self, cells: list[Cell], spec: ExperimentSpec, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self._spec = spec
        self._estimates = {key: low for key, (low, _) in estimates(cells, spec).items()}
        low_reps, self._high_reps = planned_repetitions(spec.stop, spec.repetition_count)
        self._per_repetition = {key: low / max(1, low_reps) for key, low in self._estimates.items()}
        self._round = ""
        self._total = len(cells)
        self._done = 0
        self._estimated_done = 0.0
        self._started = time.monotonic()
        self._spent_on_done = 0.0
        self._current = ""
        self._live = self.console.is_terminal
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=20),
            MofNCompleteColumn(),
            TextColumn("cells · {task.fields[eta]}"),
            TimeElapsedColumn(),
            console=self.console,
        )
        self._task = self._progress.add_task("starting", total=self._total, eta="ETA –")

    def __enter__(self) -> Self:
        if self._live:
            self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._live:
            self._progress.stop()

    # -- events from the runner ---------------------------------------------------------
    def start_repetition(self, cell: Cell, repetition: int, throughputs: list[float]) -> None:
        """A repetition of `cell` begins; `throughputs` are the completed ones' ops/s."""
        ci = ""
        stop = self._spec.stop
        if len(throughputs) >= 2:
            interval = confidence_interval(throughputs, stop.confidence)
            ci = f" · CI ±{100 * interval.relative_half_width:.1f}%"
            needed = projected_repetitions(stop, throughputs) if stop.adaptive else None
            if needed is not None and needed > len(throughputs):
                ci += f" (≈ {needed} reps for ±{100 * stop.ci_target:g}%)"
        self._current = (
            f"{self._round}cell {cell.index}/{self._total} {cell.label} · rep {repetition}"
            f"{self._repetition_bound()}{ci}"
        )

    def start_round(self, number: int) -> None:
        """Round `number` of an interleaved order begins (its cells' lines say so)."""
        stop = self._spec.stop
        if stop.adaptive:
            of = f" of {stop.min_repetitions}–{stop.max_repetitions}"
        else:
            of = f"/{self._high_reps}"
        self._round = f"round {number}{of} · "

    def start_pass(self, number: int) -> None:
        """Pass `number` (1 or 2) of a counterbalanced order begins."""
        self._round = f"pass {number}/2 · "

    def repetition_done(self, cell: Cell) -> None:
        """A repetition of `cell` completed: its share of the cell's estimate is done."""
        share = min(self._per_repetition.get(cell.key, 0.0), self._estimates.get(cell.key, 0.0))
        if cell.key in self._estimates:
            self._estimates[cell.key] -= share
        self._estimated_done += share
        self._spent_on_done = time.monotonic() - self._started
        self._progress.update(self._task, eta=self._eta())

    def start_phase(self, cell: Cell, repetition: int, phase: str) -> None:
        """A load or run phase begins."""
        text = f"{self._current} · {phase}"
        self._show(text)

    def status(self, ops_per_sec: float) -> None:
        """The running phase's aggregate ops/s so far (from the engines' status lines)."""
        if self._live and ops_per_sec > 0:  # 0 until the engines' first status line
            self._progress.update(
                self._task, description=f"{self._current} · {ops_per_sec:,.0f} ops/s so far"
            )

    def finish_phase(self) -> None:
        """A phase ended (the display moves on with the next event)."""

    def cell_done(self, cell: Cell, already: bool = False) -> None:
        """`cell` is complete (`already`: in an earlier run of a resumed folder)."""
        self._advance(cell, counted=not already)
        if not self._live:
            verb = "was done before" if already else "done"
            self.console.print(
                f"cell {cell.index}/{self._total} {verb} · {self._eta()}", highlight=False
            )

    def cell_skipped(self, cell: Cell, reason: str) -> None:
        """`cell` cannot run here; says why."""
        self._advance(cell, counted=False)
        self.console.print(
            f"cell {cell.index}/{self._total} {cell.label} skipped: {reason}",
            highlight=False,
            soft_wrap=True,
        )

    def cell_failed(self, cell: Cell, reason: str) -> None:
        """A phase of `cell` failed; the run goes on with the next cell."""
        self._advance(cell, counted=False)
        self.console.print(
            f"cell {cell.index}/{self._total} {cell.label} failed: {reason}",
            highlight=False,
            soft_wrap=True,
        )

    # -- internals ----------------------------------------------------------------------
    def _repetition_bound(self) -> str:
        stop = self._spec.stop
        if stop.adaptive:
            return f" (until ±{100 * stop.ci_target:g}%, {stop.min_repetitions}–{stop.max_repetitions})"
        return f"/{self._spec.repetition_count}"

    def _show(self, text: str) -> None:
        if self._live:
            self._progress.update(self._task, description=text)
        else:
            self.console.print(f"{text} · {self._eta()}", highlight=False, soft_wrap=True)

    def _advance(self, cell: Cell, counted: bool) -> None:
        self._done += 1
        estimate = self._estimates.pop(cell.key, 0.0)  # what its repetitions left of it
        if counted:
            self._estimated_done += estimate
            self._spent_on_done = time.monotonic() - self._started
        self._progress.update(self._task, advance=1, eta=self._eta())

    def _eta(self) -> str:
        remaining = sum(self._estimates.values())
        if self._estimated_done > 0:
            remaining *= self._spent_on_done / self._estimated_done
        if not self._estimates:
            return "ETA 0:00"
        if math.isnan(remaining):
            return "ETA –"
        return f"ETA {int(remaining // 60)}:{int(remaining % 60):02d}"
