"""Running an experiment: check it, open its results, run its cells in order, tear down.

Before anything is provisioned: the engine checks every (target, workload,
properties), and when cells run under docker the Docker engine is reached and their
images built or reused (`contio.run.docker_preparation`). Then, in stages:

1. `results_setup`: a new results folder (the cells and the order they run in: the
   spec's `order`, `auto` resolved by `contio.run.pricing.resolved_order`, the seed drawn and
   recorded), or the folder `--resume` goes on with, in its recorded order;
2. `schedulers`: the cells in that order (one scheduler per order mode);
3. `cell_runner`: each cell skipped with a reason, or run until its stopping rule has
   enough; a failed repetition fails its cell and the run goes on;
4. `phase_runner`: each repetition's phases on the cell's data, recorded in the index;
5. the teardown: data, servers, executors, I/O controls and middleware, backends last,
   then backends.json and summary.csv; on a failure or an interrupt too.

With `resume`, cells already done are passed over (failed and skipped ones are tried
again) and a partly done cell goes on from its next repetition.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contio.containers.sweep import remove_experiment
from contio.engine.invocation import find_engine
from contio.errors import ContioError, Interrupted, InvalidSpecError
from contio.experiment.cell_order import execution_order
from contio.experiment.checks import run_problems
from contio.experiment.matrix import Cell, expand
from contio.experiment.parts import CellOrder
from contio.experiment.spec import ExperimentSpec
from contio.results.folder import BACKENDS_JSON, SUMMARY_CSV, ResultsFolder
from contio.results.index import ResultsIndex
from contio.results.results_root import check_results_root
from contio.results.summary import CellSummary, summarize, summary_rows
from contio.run.cell_runner import CellRunner
from contio.run.docker_preparation import DockerSetup, prepare_docker
from contio.run.identity import check_resumable
from contio.run.phase_calls import check_with_engine
from contio.run.phase_runner import PhaseRunner
from contio.run.progress import RunProgress
from contio.run.results_setup import (
    OpenedResults,
    drop_if_unused,
    experiment_id,
    new_results,
    resume_results,
)
from contio.run.run_session import RunSession
from contio.run.schedulers import run_cells
from contio.run.teardown_signals import TeardownSignals, wait_at_gate
from contio.signals import interrupts_raise


@dataclass
class RunOutcome:
    """What a run produced, complete or not."""

    folder: ResultsFolder
    summaries: list[CellSummary]
    interrupted: int | None = None
    """The signal that came during the teardown, after every cell had ended (the results
    are complete; the command still exits 128 + it)."""


ProgressFactory = Callable[[list[Cell], ExperimentSpec], RunProgress]


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Runner:
    """Executes one validated spec (into a new results folder, or resuming one)."""

    def __init__(
        self,
        spec: ExperimentSpec,
        spec_text: str,
        results_root: Path,
        *,
        profile: str | None = None,
        resume: Path | None = None,
        progress: ProgressFactory = RunProgress,
        echo: Callable[[str], None] = _to_stderr,
        trace_requests: bool = False,
    ):
        self.spec = spec
        self.spec_text = spec_text
        self.results_root = results_root
        self.profile = profile
        self.resume = resume
        self.trace_requests = trace_requests
        """Trace every request the data's disk completes in run phases (`contio profile`)."""
        self._progress_factory = progress
        self._echo = echo
        self.cells = expand(spec)
        self.order: CellOrder = spec.order
        """The order the cells run in, its seed drawn (or read back on resume) when the
        results are opened."""
        self.folder: ResultsFolder | None = None
        self.index: ResultsIndex | None = None
        self._docker: DockerSetup | None = None
        self._experiment = experiment_id(spec.name)
        self._teardown_signals = TeardownSignals(echo)
        self.phases = PhaseRunner(spec, self._experiment, trace_requests)

    @property
    def completed_phases(self) -> int:
        """Phases recorded `ok` in this session (the interrupt message counts them)."""
        return self.phases.completed_phases

    def run(self) -> RunOutcome:
        """Check the spec against the engine, then run it; see the module doc for the order."""
        engine = find_engine()
        # SIGINT/SIGTERM raise `Interrupted` from here on, so every `finally` below cleans
        # up; after the first signal, or once the cells have ended, further ones are only
        # noted until the teardown is done (`contio.run.teardown_signals`).
        with interrupts_raise():
            try:
                outcome = self._checked_run(engine)
            finally:
                self._teardown_signals.release()
        outcome.interrupted = self._teardown_signals.signum
        return outcome

    def check_with_engine(self) -> None:
        """Let the engine validate every (target, workload, properties) before anything
        runs (`contio.run.phase_calls.check_with_engine`)."""
        check_with_engine(self.spec, self.cells)

    def _checked_run(self, engine: Path) -> RunOutcome:
        if self.resume is not None:
            check_resumable(self.resume, self.spec, self.profile)
        else:
            check_results_root(self.results_root)
        problems = run_problems(self.spec)
        if problems:
            raise InvalidSpecError(self.spec.name, problems)
        self.check_with_engine()
        self._docker = prepare_docker(self.spec, self.cells, self._experiment, self._echo)
        self.phases.docker = self._docker
        try:
            opened = self._open_results()
            try:
                return self._run_all(engine, opened)
            except ContioError as exc:
                new = not isinstance(exc, Interrupted) and self.resume is None
                if new and drop_if_unused(opened.folder, opened.index):
                    self.folder = None
                raise
            finally:
                opened.index.close()
        finally:
            self._teardown_signals.hold()
            if self._docker is not None:
                # The images' holds, and whatever an executor could not remove.
                remove_experiment(self._docker.client, self._experiment)
                self._docker.client.close()

    def _open_results(self) -> OpenedResults:
        if self.resume is not None:
            opened = resume_results(self.resume, self.spec, self._echo)
        else:
            opened = new_results(
                self.results_root, self.spec, self.spec_text, self.cells, self.profile
            )
        self.folder, self.index, self.order = opened.folder, opened.index, opened.order
        return opened

    def _start_session(self, index: ResultsIndex) -> int:
        session = index.new_session()
        # Which mechanism applied block I/O groups (cgroup v1 does not throttle buffered
        # writes; the controller's mechanism string says what was used).
        index.set_meta(f"io_mechanism.session{session}", self.phases.io.mechanism)
        if self._docker is not None:
            # Every container, network and volume of this session carries this label.
            index.set_meta(f"docker_experiment.session{session}", self._experiment)
            index.set_meta(f"docker.session{session}", self._docker.describe())
        return session

    def _run_all(self, engine: Path, opened: OpenedResults) -> RunOutcome:
        folder, index = opened.folder, opened.index
        number = self._start_session(index)
        ordered = execution_order(self.cells, self.order.mode, self.order.seed)
        # The display prices the cells in the order this run uses (`auto` resolved, or
        # the order recorded by the session a resume goes on from).
        shown = self.spec.model_copy(update={"order": self.order})
        progress = self._progress_factory(ordered, shown)
        session = RunSession(engine, folder, index, progress, number)
        try:
            with progress:
                run_cells(
                    self.spec, self.cells, self.order, session, CellRunner(self.spec, self.phases)
                )
                self._teardown_signals.hold()  # every cell has ended: the teardown is next
        finally:
            summaries = self._teardown(folder, index)
        return RunOutcome(folder, summaries)

    def _teardown(self, folder: ResultsFolder, index: ResultsIndex) -> list[CellSummary]:
        """Release everything the run holds, backends last, then write backends.json and
        summary.csv; signals wait until it is done (`contio.run.teardown_signals`)."""
        self._teardown_signals.hold()
        wait_at_gate()
        pool = self.phases.pool
        try:
            self.phases.release()
        finally:
            descriptions = {n: pool.describe(n) for n in self.spec.backend_definitions()}
            pool.teardown()
            for name, description in descriptions.items():
                if description:
                    index.set_backend(name, description, None)
                elif pool.unavailable(name):
                    index.set_backend(name, None, pool.unavailable(name))
            folder.replace_derived_json(BACKENDS_JSON, index.backends())
            summaries = summarize(index)
            folder.replace_derived(SUMMARY_CSV, summary_rows(summaries))
        return summaries
