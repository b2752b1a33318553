"""The live progress display of a run: current cell and repetition, its ops/s so far,
cells done out of all, and the ETA.

Drawn on stderr so stdout keeps only the results table. On a terminal it is a live
bar redrawn as the engines report (about once a second); elsewhere (CI, pipes) each
phase and each cell's end prints one plain line. The ETA scales the plan's estimate
of the remaining cells (`contio.run.plan`) by how fast the finished ones went against
their own estimate.
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
from contio.run.plan import estimates
from contio.run.stopping import projected_repetitions
from contio.stats import confidence_interval


class RunProgress:
    """Progress over the cells of an experiment."""

    def __init__(self, cells: list[Cell], spec: ExperimentSpec, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self._spec = spec
        self._estimates = {key: low for key, (low, _) in estimates(cells, spec).items()}
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
            f"cell {cell.index}/{self._total} {cell.label} · rep {repetition}"
            f"{self._repetition_bound()}{ci}"
        )

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
        estimate = self._estimates.pop(cell.key, 0.0)
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
