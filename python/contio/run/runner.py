"""Running an experiment: check it, then run its cells in order, each until its stopping
rule is met, keeping every completed phase in the results index.

Before anything is provisioned: the engine checks every (target, workload,
properties), and when cells run under docker the Docker engine is reached and their
images built or reused (`contio.run.docker_preparation`).

The cells run in the spec's `order` (`auto` resolved by `contio.run.plan.resolved_order`;
the mode and seed recorded in the index's meta `order` and in spec.json). Under `random`
and `fixed` (`contio.experiment.matrix.execution_order`) each cell runs all its
repetitions before the next; under `interleaved` the run goes in rounds
(`contio.experiment.matrix.interleaved_rounds`), each giving one repetition to every cell
whose stopping rule still wants one; under `counterbalanced` in two mirrored passes
(`contio.experiment.matrix.counterbalanced_passes`), each cell running half its
repetitions in the first and the rest in the second. Before a cell's first repetition: skip it with a
reason if its backend or its block I/O controls cannot be had here. Each repetition:
load if the load policy asks (`contio.run.loads`; the runtime's executor starts database
servers on the data first; moving to another load group releases the data, so an
interleaved order reloads a group each round), drop caches if asked, run the cell's
containers together through the runtime's executor with the host and each container
sampled every second; `contio.run.stopping` says when a cell has enough. A cell whose
phase fails (an engine error, a database that dies or never gets ready) is recorded
`failed` with the reason and the run goes on without it. Backends are provisioned on
first use and torn down at the end, on a failure or on an interrupt; data (and its
servers) is released before. With `resume`, cells already done in the folder's index
are passed over (failed and skipped ones are tried again), a partly done cell goes on
from its next repetition, and the cells run in the order recorded when the folder was
made (interleaved: the same rounds, each cell's completed repetitions counting as its
first rounds, so the run goes on mid-round).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import secrets
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contio.cells import RUNTIMES
from contio.cells.executor import CellExecutor, RunContext
from contio.containers.data_location import HostPath
from contio.containers.sweep import remove_experiment
from contio.engine.invocation import engine_version, find_engine
from contio.errors import (
    BackendUnavailableError,
    CellFailed,
    ContioError,
    EngineError,
    EngineUsageError,
    Interrupted,
    InvalidSpecError,
)
from contio.experiment.checks import run_problems
from contio.experiment.matrix import (
    Cell,
    counterbalanced_passes,
    describe_order,
    execution_order,
    expand,
    first_pass_repetitions,
    interleaved_rounds,
)
from contio.experiment.parts import CellOrder
from contio.experiment.spec import ExperimentSpec
from contio.gluster.faults import FaultSchedule
from contio.machine import describe_host
from contio.qos.io_controls import IoController, process_controller
from contio.qos.io_groups import backend_location, device_of
from contio.results.folder import (
    BACKENDS_JSON,
    EVENTS_JSON,
    SERVERS_JSON,
    SUMMARY_CSV,
    PhaseRecord,
    ResultsFolder,
)
from contio.results.index import ResultsIndex
from contio.results.results_root import check_results_root
from contio.results.summary import CellSummary, summarize, summary_rows
from contio.run.backend_pool import BackendPool
from contio.run.docker_preparation import DockerSetup, prepare_docker
from contio.run.identity import check_resumable, spec_fingerprint
from contio.run.loads import LoadedData, data_bytes, member_backends, needs_load
from contio.run.measured_prices import measured_phases
from contio.run.middleware_control import MiddlewareIoController
from contio.run.page_cache import drop_page_cache
from contio.run.phase_calls import (
    check_with_engine,
    clean_up,
    phase_containers,
    phase_outcome,
    phase_record,
    place_data,
)
from contio.run.phase_context import PhaseContext
from contio.run.plan import resolved_order
from contio.run.progress import RunProgress
from contio.run.release_each import release_each
from contio.run.stopping import planned_repetitions, wants_another
from contio.run.teardown_signals import TeardownSignals, wait_at_gate
from contio.samplers.block_requests import REQUESTS_JSON, RequestTrace
from contio.samplers.phase import data_disk, phase_columns
from contio.signals import interrupts_raise

# A failed phase ends its cell, not the experiment.
CELL_FAILURES = (CellFailed, EngineError, EngineUsageError)


@dataclass
class RunOutcome:
    """What a run produced, complete or not."""

    folder: ResultsFolder
    summaries: list[CellSummary]
    interrupted: int | None = None
    """The signal that came during the teardown, after every cell had ended (the results
    are complete; the command still exits 128 + it)."""


ProgressFactory = Callable[[list[Cell], ExperimentSpec], RunProgress]


def experiment_id(name: str) -> str:
    """A run's id for the labels and names of its Docker resources: short, because a
    container's name is the host name its clients resolve (a DNS label: 63 characters)."""
    return f"{name[:20]}-{uuid.uuid4().hex[:8]}"


ORDER_META = "order"
"""The index meta key holding the cell order a folder runs in (`CellOrder` as JSON)."""


def drawn_order(order: CellOrder) -> CellOrder:
    """`order` (resolved: not `auto`) with a seed: the spec's, or one drawn now for a
    random or interleaved order without one."""
    if order.mode != "fixed" and order.seed is None:
        return CellOrder(mode=order.mode, seed=secrets.randbelow(2**31))
    return order


def recorded_order(index: ResultsIndex) -> CellOrder:
    """The order a results folder's cells run in; folders made before the order was
    recorded ran in the cells' own order (`fixed`)."""
    stored = index.meta(ORDER_META)
    return CellOrder(**stored) if stored else CellOrder(mode="fixed")


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
        self.trace_requests = trace_requests
        """Trace every request the data's disk completes in run phases (`contio profile`):
        `run-requests.json` beside each phase's output."""
        self.spec_text = spec_text
        self.results_root = results_root
        self.profile = profile
        self.resume = resume
        self._progress_factory = progress
        self._echo = echo
        self.cells = expand(spec)
        self.order: CellOrder = spec.order
        """The order the cells run in, its seed drawn (or read back on resume) when the
        results are opened."""
        self.pool = BackendPool(spec)
        self.io: IoController = process_controller()
        self._middleware: dict[str, MiddlewareIoController] = {}
        """Per gluster backend: paper 004's middleware, for `io_controls` levels with one."""
        self.folder: ResultsFolder | None = None
        self.index: ResultsIndex | None = None
        self.completed_phases = 0
        self._session = 0
        self._loaded: LoadedData | None = None
        self._executors: dict[str, CellExecutor] = {}
        self._docker: DockerSetup | None = None
        self._experiment = experiment_id(spec.name)
        self._teardown_signals = TeardownSignals(echo)

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
        try:
            folder, index = self._open_results()
            try:
                return self._run_all(engine, folder, index)
            except ContioError as exc:
                if not isinstance(exc, Interrupted) and self.resume is None:
                    self._drop_if_unused(folder, index)
                raise
            finally:
                index.close()
        finally:
            self._teardown_signals.hold()
            if self._docker is not None:
                # The images' holds, and whatever an executor could not remove.
                remove_experiment(self._docker.client, self._experiment)
                self._docker.client.close()

    def _drop_if_unused(self, folder: ResultsFolder, index: ResultsIndex) -> None:
        """A new results folder in which no phase was recorded (the run was refused or
        failed before its first phase) is removed: nothing in it was measured."""
        if not index.phases():
            index.close()
            folder.remove_unused()
            self.folder = None

    def _open_results(self) -> tuple[ResultsFolder, ResultsIndex]:
        if self.resume is not None:
            folder, index = ResultsFolder(self.resume), ResultsIndex.open(self.resume)
            repaired = folder.sync_repetitions(index.phases())
            if repaired:
                self._echo(f"warning: {repaired}")
            self.order = recorded_order(index)
            wanted = self.spec.order
            other_mode = wanted.mode not in ("auto", self.order.mode)
            if other_mode or wanted.seed not in (None, self.order.seed):
                self._echo(
                    f"warning: {folder.path} goes on in the order it was started with "
                    f"({describe_order(self.order)}), not the spec's {describe_order(wanted)}"
                )
        else:
            # Priced as `contio plan` prices it: from what earlier runs of this spec
            # measured where there are any, so the run takes the order the plan said.
            measured = measured_phases(self.results_root, spec_fingerprint(self.spec))
            folder = ResultsFolder.create(self.results_root, self.spec.name)
            index = ResultsIndex.create(folder.path)
            self.order = drawn_order(resolved_order(self.cells, self.spec, measured=measured))
            index.set_meta(ORDER_META, self.order.model_dump())
            folder.write_text("spec.yaml", self.spec_text)
            recorded = self.spec.model_copy(update={"order": self.order})
            folder.write_json("spec.json", recorded.model_dump(mode="json"))
            folder.write_json("host.json", describe_host(engine_version()))
            index.set_meta("profile", self.profile)
            index.set_meta("spec_fingerprint", spec_fingerprint(self.spec))
            index.add_cells(
                [(c.key, c.index, c.label, c.level, len(c.members)) for c in self.cells]
            )
        self.folder, self.index = folder, index
        self._session = index.new_session()
        # Which mechanism applied block I/O groups (cgroup v1 does not throttle buffered
        # writes; the controller's mechanism string says what was used).
        index.set_meta(f"io_mechanism.session{self._session}", self.io.mechanism)
        if self._docker is not None:
            # Every container, network and volume of this session carries this label.
            index.set_meta(f"docker_experiment.session{self._session}", self._experiment)
            index.set_meta(f"docker.session{self._session}", self._docker.describe())
        return folder, index

    def _run_all(self, engine: Path, folder: ResultsFolder, index: ResultsIndex) -> RunOutcome:
        ordered = execution_order(self.cells, self.order.mode, self.order.seed)
        # The display prices the cells in the order this run uses (`auto` resolved, or
        # the order recorded by the session a resume goes on from).
        shown = self.spec.model_copy(update={"order": self.order})
        progress = self._progress_factory(ordered, shown)
        try:
            with progress:
                if self.order.mode == "interleaved":
                    self._run_rounds(engine, folder, index, progress)
                elif self.order.mode == "counterbalanced":
                    self._run_passes(engine, folder, index, progress)
                else:
                    for cell in ordered:
                        if index.cell_status(cell.key) == "done":
                            progress.cell_done(cell, already=True)
                            continue
                        self._run_cell(engine, folder, index, cell, progress)
                self._teardown_signals.hold()  # every cell has ended: the teardown is next
        finally:
            summaries = self._teardown(folder, index)
        return RunOutcome(folder, summaries)

    def _teardown(self, folder: ResultsFolder, index: ResultsIndex) -> list[CellSummary]:
        """Release everything the run holds, backends last, then write backends.json and
        summary.csv; signals wait until it is done (`contio.run.teardown_signals`)."""
        self._teardown_signals.hold()
        wait_at_gate()
        try:
            self._release_data()
        finally:
            self._close_executors()
        try:
            try:
                self.io.release()
            finally:
                self._release_middleware()
        finally:
            descriptions = {n: self.pool.describe(n) for n in self.spec.backend_definitions()}
            self.pool.teardown()
            for name, description in descriptions.items():
                if description:
                    index.set_backend(name, description, None)
                elif self.pool.unavailable(name):
                    index.set_backend(name, None, self.pool.unavailable(name))
            folder.replace_derived_json(BACKENDS_JSON, index.backends())
            summaries = summarize(index)
            folder.replace_derived(SUMMARY_CSV, summary_rows(summaries))
        return summaries

    def _run_passes(
        self, engine: Path, folder: ResultsFolder, index: ResultsIndex, progress: RunProgress
    ) -> None:
        """The cells in two mirrored passes (`contio.experiment.matrix.counterbalanced_passes`):
        in the first, each cell runs repetitions until it has half its fewest
        (`first_pass_repetitions`); in the second, run backwards, until its stopping rule
        has enough. A resumed run passes over what is done and goes on where it stopped.
        Statuses as in `_run_rounds`."""
        assert self.order.seed is not None
        first, second = counterbalanced_passes(self.cells, self.order.seed)
        fewest, _ = planned_repetitions(self.spec.stop, self.spec.repetition_count)
        half = first_pass_repetitions(fewest)
        pending = self._unfinished(index, progress)
        started: set[str] = set()
        try:
            for number, (cells, most) in enumerate(((first, half), (second, None)), start=1):
                progress.start_pass(number)
                for cell in cells:
                    turn = 1
                    while cell.key in pending and (most is None or turn <= most):
                        if self._round_turn(engine, folder, index, cell, progress, turn, started):
                            del pending[cell.key]
                        turn += 1
        except BaseException:
            self._interrupt_started(index, started)
            raise

    def _unfinished(self, index: ResultsIndex, progress: RunProgress) -> dict[str, Cell]:
        """The cells not yet `done` (a resumed run's done ones are shown as such), by key."""
        pending: dict[str, Cell] = {}
        for cell in self.cells:
            if index.cell_status(cell.key) == "done":
                progress.cell_done(cell, already=True)
            else:
                pending[cell.key] = cell
        return pending

    def _interrupt_started(self, index: ResultsIndex, started: set[str]) -> None:
        """Every cell this session began and left `running` becomes `interrupted`."""
        for key in started:
            if index.cell_status(key) == "running":
                index.set_cell_status(
                    key, "interrupted", "the run stopped before its last repetition"
                )

    def _run_rounds(
        self, engine: Path, folder: ResultsFolder, index: ResultsIndex, progress: RunProgress
    ) -> None:
        """The cells in rounds (`contio.experiment.matrix.interleaved_rounds`): round n
        gives a repetition to each unfinished cell with fewer than n completed, so a
        resumed run passes over the repetitions done before and goes on mid-round.

        A cell is `running` from its first repetition until its stopping rule has
        enough (`done`) or a repetition fails (`failed`: it gets no more rounds); when
        the run stops early, every cell it left `running` becomes `interrupted`.
        """
        assert self.order.seed is not None
        pending = self._unfinished(index, progress)
        started: set[str] = set()
        rounds = interleaved_rounds(self.cells, self.order.seed)
        number = 0
        try:
            while pending:
                number += 1
                progress.start_round(number)
                for cell in next(rounds):
                    if cell.key not in pending:
                        continue
                    if self._round_turn(engine, folder, index, cell, progress, number, started):
                        del pending[cell.key]
        except BaseException:
            self._interrupt_started(index, started)
            raise

    def _round_turn(
        self,
        engine: Path,
        folder: ResultsFolder,
        index: ResultsIndex,
        cell: Cell,
        progress: RunProgress,
        number: int,
        started: set[str],
    ) -> bool:
        """`cell`'s turn in round `number` (of a pass: its `number`th repetition): one
        repetition if it has fewer than `number` completed and its stopping rule wants
        another. True when the cell is finished
        (done, failed or skipped); `started` gets the cells this session began."""
        throughputs = index.completed_throughputs(cell.key, len(cell.members))
        if len(throughputs) >= number:
            return False  # its repetition of this round ran before a resume
        if not wants_another(self.spec.stop, self.spec.repetition_count, throughputs):
            index.set_cell_status(cell.key, "done")  # its last ran before a resume
            progress.cell_done(cell, already=cell.key not in started)
            return True
        if cell.key not in started:
            reason = self._skip_reason(cell)
            if reason is not None:
                index.set_cell_status(cell.key, "skipped", reason)
                progress.cell_skipped(cell, reason)
                return True
            index.set_cell_status(cell.key, "running")
            started.add(cell.key)
        repetition = index.last_repetition(cell.key) + 1
        if not self._guarded(
            index, cell, progress,
            lambda: self._repetition(engine, folder, index, cell, progress, repetition, throughputs),
        ):  # fmt: skip
            return True  # failed: no more rounds for it
        progress.repetition_done(cell)
        if wants_another(self.spec.stop, self.spec.repetition_count, throughputs):
            return False
        index.set_cell_status(cell.key, "done")
        progress.cell_done(cell)
        return True

    def check_with_engine(self) -> None:
        """Let the engine validate every (target, workload, properties) before anything
        runs (`contio.run.phase_calls.check_with_engine`)."""
        check_with_engine(self.spec, self.cells)

    def _executor(self, runtime: str) -> CellExecutor:
        if runtime not in self._executors:
            module, _, name = RUNTIMES[runtime].partition(":")
            cls = getattr(importlib.import_module(module), name)
            context = RunContext(self._experiment, self._docker)
            self._executors[runtime] = cls.for_run(self.spec, context)
        return self._executors[runtime]

    def _close_executors(self) -> None:
        """Let every executor remove what it still holds (docker: the run's containers,
        network and volumes), even when one fails."""
        executors = list(self._executors.values())
        self._executors.clear()
        release_each(executor.close for executor in executors)

    def _skip_reason(self, cell: Cell) -> str | None:
        """Why `cell` cannot run here, or None. What needs no storage is checked before the
        backend is provisioned (a skipped cell builds no cluster); the disk the I/O
        controls apply to is known only after, and a weight without BFQ (cgroup v1)
        skips the cell then."""
        name = cell.level["backend"]
        controls = self.spec.controls_for(cell.level)
        for used in dict.fromkeys([name, *member_backends(cell)]):
            if reason := self.pool.unavailable(used):
                return f"backend {used!r} is unavailable: {reason}"
        if (
            controls is not None
            and controls.middleware is None
            and (reason := self.io.unavailable_reason(controls))
        ):
            return reason
        try:
            for used in dict.fromkeys(member_backends(cell)):
                self.pool.get(used)
            backend = self.pool.get(name)
        except BackendUnavailableError as exc:
            return f"backend {used!r} is unavailable: {exc}"
        if controls is None:
            return None
        device = device_of(controls, backend_location(backend))
        return self._io_for(cell).unavailable_reason(controls, device=device)

    def _io_for(self, cell: Cell) -> IoController:
        """The controller of `cell`'s io_controls level: the middleware on its backend's
        cluster for a level with `middleware`, else local cgroups."""
        controls = self.spec.controls_for(cell.level)
        if controls is None or controls.middleware is None:
            return self.io
        name = cell.level["backend"]
        if name not in self._middleware:
            self._middleware[name] = MiddlewareIoController(self.pool.get(name))
        return self._middleware[name]

    def _release_middleware(self) -> None:
        """Every middleware's tenants removed (and `contio qos` down where the run brought
        it up), before the backends' volumes and clusters go."""
        controllers = list(self._middleware.values())
        self._middleware.clear()
        release_each(controller.release for controller in controllers)

    def _run_cell(
        self,
        engine: Path,
        folder: ResultsFolder,
        index: ResultsIndex,
        cell: Cell,
        progress: RunProgress,
    ) -> None:
        reason = self._skip_reason(cell)
        if reason is not None:
            index.set_cell_status(cell.key, "skipped", reason)
            progress.cell_skipped(cell, reason)
            return
        index.set_cell_status(cell.key, "running")
        if self._guarded(
            index, cell, progress, lambda: self._repeat(engine, folder, index, cell, progress)
        ):
            index.set_cell_status(cell.key, "done")
            progress.cell_done(cell)

    def _guarded(
        self, index: ResultsIndex, cell: Cell, progress: RunProgress, action: Callable[[], None]
    ) -> bool:
        """Run `action` (repetitions of `cell`); False when one failed, which fails the
        cell (the run goes on with the next); an interrupt or any other error ends the
        run with the cell `interrupted` or `failed`."""
        try:
            action()
        except CELL_FAILURES as exc:
            reason = str(exc)
            index.set_cell_status(cell.key, "failed", reason)
            progress.cell_failed(cell, reason)
            # Half-loaded data and dead servers are of no use to the next cell.
            self._release_data()
            return False
        except (Interrupted, KeyboardInterrupt) as exc:
            index.set_cell_status(cell.key, "interrupted", str(exc) or "interrupted")
            raise
        except BaseException as exc:
            # The experiment ends here; the cell must not look as if it still ran.
            index.set_cell_status(cell.key, "failed", f"the run was aborted: {exc}")
            raise
        return True

    def _repeat(
        self,
        engine: Path,
        folder: ResultsFolder,
        index: ResultsIndex,
        cell: Cell,
        progress: RunProgress,
    ) -> None:
        """Repetitions of `cell` until its stopping rule has enough."""
        throughputs = index.completed_throughputs(cell.key, len(cell.members))
        repetition = index.last_repetition(cell.key)
        while wants_another(self.spec.stop, self.spec.repetition_count, throughputs):
            repetition += 1
            self._repetition(engine, folder, index, cell, progress, repetition, throughputs)
            progress.repetition_done(cell)

    def _repetition(
        self,
        engine: Path,
        folder: ResultsFolder,
        index: ResultsIndex,
        cell: Cell,
        progress: RunProgress,
        repetition: int,
        throughputs: list[float],
    ) -> None:
        """Repetition number `repetition` of `cell`: load if the load policy asks, drop
        caches if asked, run; its ops/s is appended to `throughputs`."""
        progress.start_repetition(cell, repetition, throughputs)
        context = PhaseContext(self.spec, folder, self._session, cell, repetition, "load")
        try:
            loaded = self._ensure_load(engine, context, index, progress)
            if self.spec.drop_caches:
                drop_page_cache()
            records = self._phase(engine, context.at("run"), index, loaded, progress)
        except CellFailed as exc:
            raise CellFailed(f"repetition {repetition}: {exc}") from exc
        if not cell.read_only:
            loaded.fresh = False  # later cells on this load see changed data
        throughputs.append(sum(r.steady_ops_per_sec for r in records))

    def _ensure_load(
        self, engine: Path, context: PhaseContext, index: ResultsIndex, progress: RunProgress
    ) -> LoadedData:
        """The data `context`'s cell runs on: what is loaded when the load policy lets it
        be reused, else a fresh load (`context`'s phase is the load)."""
        cell = context.cell
        if not needs_load(self.spec.load.reuse, self._loaded, cell):
            assert self._loaded is not None
            return self._loaded
        self._release_data()
        runtime = cell.level["runtime"]
        executor = self._executor(runtime)
        backends = member_backends(cell)
        locations = [
            place_data(self.pool.get(name), f"{cell.slug}-c{k}", runtime, member.tenant)
            for k, (member, name) in enumerate(zip(cell.members, backends, strict=True), start=1)
        ]
        loaded = LoadedData(
            cell.load_key(), backends, locations, fresh=True,
            members=list(cell.members), runtime=runtime,
            disk=data_disk(loc.path for loc in locations if isinstance(loc, HostPath)),
        )  # fmt: skip
        self._loaded = loaded  # released (with whatever servers start) on any failure
        if any(m.database for m in cell.members):
            progress.start_phase(cell, context.repetition, "database servers")
        loaded.session = executor.open_data(cell.members, locations)
        if loaded.session.description:
            context.write_json(SERVERS_JSON, loaded.session.description)
        self._phase(engine, context, index, loaded, progress)
        return loaded

    def _request_trace(self, loaded: LoadedData, phase: str) -> RequestTrace | None:
        """A trace of the data disk's requests for a run phase, when asked for."""
        if not self.trace_requests or phase != "run":
            return None
        return RequestTrace.begin(loaded.disk)

    def _faults(self, cell: Cell) -> FaultSchedule | None:
        """The spec's node-stop events, started now, when the cell's backend is gluster."""
        if not self.spec.events:
            return None
        backend = self.pool.get(cell.level["backend"])
        if not backend.capabilities.node_faults:
            return None  # events play on gluster levels only
        cluster, volume = backend.fault_domain()
        schedule = FaultSchedule(cluster, volume, list(self.spec.events))
        schedule.start()
        return schedule

    def _finish_faults(self, schedule: FaultSchedule, context: PhaseContext) -> None:
        """Wait for restarts and heals (an interrupted run still restarts a stopped node);
        the records go to `events.json` in the repetition's raw directory."""
        schedule.cancel()  # events not yet begun when the phase ended are skipped
        try:
            schedule.join(timeout=max(e.heal_timeout for e in self.spec.events) + 120)
        finally:
            context.write_json(EVENTS_JSON, [r.as_dict() for r in schedule.records])

    def _release_data(self) -> None:
        """Stop the servers on the loaded data, run the kinds' cleanup, release the
        directories (volumes go with the servers)."""
        if self._loaded is None:
            return
        loaded, self._loaded = self._loaded, None
        try:
            if loaded.session is not None:
                self._executors[loaded.runtime].close_data(loaded.session)
        finally:
            clean_up(loaded)
            for name, location in zip(loaded.backends, loaded.locations, strict=True):
                if isinstance(location, HostPath):
                    self.pool.get(name).release(location.path)

    def _phase(
        self,
        engine: Path,
        context: PhaseContext,
        index: ResultsIndex,
        loaded: LoadedData,
        progress: RunProgress,
    ) -> list[PhaseRecord]:
        """`context`'s phase of every container of its cell, recorded; `CellFailed` when
        one fails (the others' rows are kept)."""
        cell, phase = context.cell, context.phase
        progress.start_phase(cell, context.repetition, phase)
        executor = self._executor(cell.level["runtime"])
        barrier = executor.barrier and phase == "run"
        containers = phase_containers(context, loaded, executor)
        go_file = containers[0].json.parent / f"{phase}.go" if barrier else None
        metrics = containers[0].json.parent / f"{phase}-metrics.jsonl"
        io = self._io_for(cell)
        middleware = io if isinstance(io, MiddlewareIoController) else None
        if middleware is not None:
            # Loads lay out data unthrottled; a run starts with its level's shares in force.
            middleware.use(self.spec.controls_for(cell.level) if phase == "run" else None)
            if phase == "run":
                middleware.sample_to(metrics.parent)
        faults = self._faults(cell) if phase == "run" else None
        trace = self._request_trace(loaded, phase)
        try:
            codes = executor.run_phase(
                engine, containers, io, progress.status, phase=phase,
                session=loaded.session, metrics=metrics, go_file=go_file,
            )  # fmt: skip
        finally:
            if middleware is not None:
                middleware.stop_sampling()
            if faults is not None:
                self._finish_faults(faults, context)
            if trace is not None:
                (metrics.parent / REQUESTS_JSON).write_text(json.dumps(trace.finish()) + "\n")
        if middleware is not None and phase == "run":
            middleware.check_held()  # a coordinator or agent that died fails the cell
        sampled = phase_columns(metrics, len(containers), loaded.disk) if metrics else {}
        records, failure = [], None
        for container, member, code, location in zip(
            containers, cell.members, codes, loaded.locations, strict=True
        ):
            result, problem = phase_outcome(code, container)
            if problem is not None:
                failure = failure or f"{phase} phase, container {container.container}: {problem}"
            if result is None:
                continue
            record = phase_record(
                context, container, member, result, executor.applied,
                {**sampled.get(container.container, {}), "data_bytes": data_bytes(location)},
            )  # fmt: skip
            index.add_phase(dataclasses.asdict(record))
            context.folder.append_record(record)
            records.append(record)
            if record.status == "ok":
                self.completed_phases += 1
        if failure is not None:
            raise CellFailed(failure)
        progress.finish_phase()
        return records
