"""The live progress display of a run: cell n of N, repetition, phase, ETA.

Drawn on stderr so stdout keeps only the results table. On a terminal it is a
live line with a bar; elsewhere (CI, pipes) each phase prints one plain line.
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from typing_extensions import Self

from contio.matrix import Cell


class RunProgress:
    """Progress over the phases (loads and runs) of an experiment."""

    def __init__(self, phases: int, cells: int, repetitions: int, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self._cells = cells
        self._repetitions = repetitions
        self._phases = phases
        self._done = 0
        self._started = time.monotonic()
        self._live = self.console.is_terminal
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("phases ·"),
            TimeElapsedColumn(),
            TextColumn("· ETA"),
            TimeRemainingColumn(),
            console=self.console,
            # Average over the whole run: loads and runs of every size are in the mix.
            speed_estimate_period=3600,
        )
        self._task = self._progress.add_task("starting", total=phases)

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

    def start_phase(self, cell: Cell, repetition: int, phase: str) -> None:
        """Show that `phase` of `cell` (repetition `repetition`) is running."""
        text = (
            f"cell {cell.index} of {self._cells} · repetition {repetition} of "
            f"{self._repetitions} · {phase} {cell.target} {cell.workload.name}"
        )
        if phase == "run":
            text += f" threads={cell.threads}"
        if self._live:
            self._progress.update(self._task, description=text)
        else:
            self.console.print(f"{text} · {self._eta()}", highlight=False, soft_wrap=True)

    def finish_phase(self) -> None:
        """Count one phase as done."""
        self._done += 1
        self._progress.advance(self._task)

    def _eta(self) -> str:
        if not self._done:
            return "ETA –"
        elapsed = time.monotonic() - self._started
        remaining = elapsed / self._done * (self._phases - self._done)
        return f"ETA {int(remaining // 60)}:{int(remaining % 60):02d}"
