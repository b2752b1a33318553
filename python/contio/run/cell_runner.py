"""Running one cell: skip it with a reason when its backend or its block I/O controls
cannot be had here, else repetitions until its stopping rule has enough
(`contio.run.stopping`), all at once or one per turn of an interleaved or
counterbalanced order. Each repetition loads if the load policy asks, drops the page
cache if asked, and runs. A repetition that fails (an engine error, a database that
dies or never gets ready) fails the cell with the reason and the run goes on without it.
"""

from __future__ import annotations

from collections.abc import Callable

from contio.errors import CellFailed, EngineError, EngineUsageError, Interrupted
from contio.experiment.matrix import Cell
from contio.experiment.spec import ExperimentSpec
from contio.run.page_cache import drop_page_cache
from contio.run.phase_context import PhaseContext
from contio.run.phase_runner import PhaseRunner
from contio.run.run_session import RunSession
from contio.run.stopping import wants_another

CELL_FAILURES = (CellFailed, EngineError, EngineUsageError)
"""A failed phase ends its cell, not the experiment."""


class CellRunner:
    """The cells of one run, each on `phases`."""

    def __init__(self, spec: ExperimentSpec, phases: PhaseRunner):
        self.spec = spec
        self.phases = phases

    def run_cell(self, session: RunSession, cell: Cell) -> None:
        """Every repetition of `cell`, one after the other (the `fixed` and `random` orders)."""
        index, progress = session.index, session.progress
        reason = self.phases.skip_reason(cell)
        if reason is not None:
            index.set_cell_status(cell.key, "skipped", reason)
            progress.cell_skipped(cell, reason)
            return
        index.set_cell_status(cell.key, "running")
        if self._guarded(session, cell, lambda: self._repeat(session, cell)):
            index.set_cell_status(cell.key, "done")
            progress.cell_done(cell)

    def turn(self, session: RunSession, cell: Cell, number: int, started: set[str]) -> bool:
        """`cell`'s turn in round `number` (of a pass: its `number`th repetition): one
        repetition if it has fewer than `number` completed and its stopping rule wants
        another. True when the cell is finished (done, failed or skipped); `started`
        gets the cells this session began."""
        index, progress = session.index, session.progress
        throughputs = index.completed_throughputs(cell.key, len(cell.members))
        if len(throughputs) >= number:
            return False  # its repetition of this round ran before a resume
        if not self._wants_another(throughputs):
            index.set_cell_status(cell.key, "done")  # its last ran before a resume
            progress.cell_done(cell, already=cell.key not in started)
            return True
        if cell.key not in started:
            reason = self.phases.skip_reason(cell)
            if reason is not None:
                index.set_cell_status(cell.key, "skipped", reason)
                progress.cell_skipped(cell, reason)
                return True
            index.set_cell_status(cell.key, "running")
            started.add(cell.key)
        repetition = index.last_repetition(cell.key) + 1
        if not self._guarded(
            session, cell, lambda: self._repetition(session, cell, repetition, throughputs)
        ):
            return True  # failed: no more rounds for it
        progress.repetition_done(cell)
        if self._wants_another(throughputs):
            return False
        index.set_cell_status(cell.key, "done")
        progress.cell_done(cell)
        return True

    def _wants_another(self, throughputs: list[float]) -> bool:
        return wants_another(self.spec.stop, self.spec.repetition_count, throughputs)

    def _guarded(self, session: RunSession, cell: Cell, action: Callable[[], None]) -> bool:
        """Run `action` (repetitions of `cell`); False when one failed, which fails the
        cell (the run goes on with the next); an interrupt or any other error ends the
        run with the cell `interrupted` or `failed`."""
        index = session.index
        try:
            action()
        except CELL_FAILURES as exc:
            reason = str(exc)
            index.set_cell_status(cell.key, "failed", reason)
            session.progress.cell_failed(cell, reason)
            # Half-loaded data and dead servers are of no use to the next cell.
            self.phases.release_data()
            return False
        except (Interrupted, KeyboardInterrupt) as exc:
            index.set_cell_status(cell.key, "interrupted", str(exc) or "interrupted")
            raise
        except BaseException as exc:
            # The experiment ends here; the cell must not look as if it still ran.
            index.set_cell_status(cell.key, "failed", f"the run was aborted: {exc}")
            raise
        return True

    def _repeat(self, session: RunSession, cell: Cell) -> None:
        """Repetitions of `cell` until its stopping rule has enough."""
        throughputs = session.index.completed_throughputs(cell.key, len(cell.members))
        repetition = session.index.last_repetition(cell.key)
        while self._wants_another(throughputs):
            repetition += 1
            self._repetition(session, cell, repetition, throughputs)
            session.progress.repetition_done(cell)

    def _repetition(
        self, session: RunSession, cell: Cell, repetition: int, throughputs: list[float]
    ) -> None:
        """Repetition number `repetition` of `cell`: load if the load policy asks, drop
        caches if asked, run; its ops/s is appended to `throughputs`."""
        session.progress.start_repetition(cell, repetition, throughputs)
        context = PhaseContext(self.spec, session.folder, session.number, cell, repetition, "load")
        try:
            loaded = self.phases.ensure_load(session, context)
            if self.spec.drop_caches:
                drop_page_cache()
            records = self.phases.run_phase(session, context.at("run"), loaded)
        except CellFailed as exc:
            raise CellFailed(f"repetition {repetition}: {exc}") from exc
        if not cell.read_only:
            loaded.fresh = False  # later cells on this load see changed data
        throughputs.append(sum(r.steady_ops_per_sec for r in records))
