"""Running a cell's phases: the data it runs on (placed on its backends, loaded, its
database servers started by the runtime's executor), each phase of every container
together, recorded in the index, and everything released after.

`PhaseRunner` holds what lives across cells: the executors (one per runtime), the I/O
controllers (local cgroups, or paper 004's middleware per Gluster backend), and the
loaded data, which a later cell reuses when the load policy lets it. Node-stop events
(`spec.events`) play during run phases on Gluster backends; `contio profile` asks for
a trace of the data disk's requests (`trace_requests`).
"""

from __future__ import annotations

import dataclasses
import importlib
import json

from contio.cells import RUNTIMES
from contio.cells.executor import CellExecutor, RunContext
from contio.containers.data_location import HostPath
from contio.errors import BackendUnavailableError, CellFailed
from contio.experiment.matrix import Cell
from contio.experiment.spec import ExperimentSpec
from contio.gluster.faults import FaultSchedule
from contio.qos.io_controls import IoController, process_controller
from contio.qos.io_groups import backend_location, device_of
from contio.results.folder import EVENTS_JSON, SERVERS_JSON
from contio.results.phase_record import PhaseRecord
from contio.run.backend_pool import BackendPool
from contio.run.docker_preparation import DockerSetup
from contio.run.loads import LoadedData, data_bytes, member_backends, needs_load
from contio.run.middleware_control import MiddlewareIoController
from contio.run.phase_calls import (
    clean_up,
    phase_containers,
    phase_outcome,
    phase_record,
    place_data,
)
from contio.run.phase_context import PhaseContext
from contio.run.release_each import release_each
from contio.run.run_session import RunSession
from contio.samplers.block_requests import REQUESTS_JSON, RequestTrace
from contio.samplers.phase import data_disk, phase_columns


class PhaseRunner:
    """The phases of every cell of one run, and what they hold between cells."""

    def __init__(
        self,
        spec: ExperimentSpec,
        experiment: str,
        trace_requests: bool = False,
    ):
        self.spec = spec
        self.pool = BackendPool(spec)
        self.io: IoController = process_controller()
        self.trace_requests = trace_requests
        """Trace every request the data's disk completes in run phases (`contio profile`):
        `run-requests.json` beside each phase's output."""
        self.completed_phases = 0
        self._experiment = experiment
        self.docker: DockerSetup | None = None
        """The run's Docker engine and images, once prepared (docker runtimes only)."""
        self._middleware: dict[str, MiddlewareIoController] = {}
        """Per gluster backend: paper 004's middleware, for `io_controls` levels with one."""
        self._executors: dict[str, CellExecutor] = {}
        self._loaded: LoadedData | None = None

    # -- what a cell runs with ------------------------------------------------------
    def executor(self, runtime: str) -> CellExecutor:
        if runtime not in self._executors:
            module, _, name = RUNTIMES[runtime].partition(":")
            cls = getattr(importlib.import_module(module), name)
            context = RunContext(self._experiment, self.docker)
            self._executors[runtime] = cls.for_run(self.spec, context)
        return self._executors[runtime]

    def io_for(self, cell: Cell) -> IoController:
        """The controller of `cell`'s io_controls level: the middleware on its backend's
        cluster for a level with `middleware`, else local cgroups."""
        controls = self.spec.controls_for(cell.level)
        if controls is None or controls.middleware is None:
            return self.io
        name = cell.level["backend"]
        if name not in self._middleware:
            self._middleware[name] = MiddlewareIoController(self.pool.get(name))
        return self._middleware[name]

    def skip_reason(self, cell: Cell) -> str | None:
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
        return self.io_for(cell).unavailable_reason(controls, device=device)

    # -- the data -------------------------------------------------------------------
    def ensure_load(self, session: RunSession, context: PhaseContext) -> LoadedData:
        """The data `context`'s cell runs on: what is loaded when the load policy lets it
        be reused, else a fresh load (`context`'s phase is the load)."""
        cell = context.cell
        if not needs_load(self.spec.load.reuse, self._loaded, cell):
            assert self._loaded is not None
            return self._loaded
        self.release_data()
        runtime = cell.level["runtime"]
        executor = self.executor(runtime)
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
            session.progress.start_phase(cell, context.repetition, "database servers")
        loaded.session = executor.open_data(cell.members, locations)
        if loaded.session.description:
            context.write_json(SERVERS_JSON, loaded.session.description)
        self.run_phase(session, context, loaded)
        return loaded

    def release_data(self) -> None:
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

    # -- one phase ------------------------------------------------------------------
    def run_phase(
        self, session: RunSession, context: PhaseContext, loaded: LoadedData
    ) -> list[PhaseRecord]:
        """`context`'s phase of every container of its cell, recorded; `CellFailed` when
        one fails (the others' rows are kept)."""
        cell, phase = context.cell, context.phase
        session.progress.start_phase(cell, context.repetition, phase)
        executor = self.executor(cell.level["runtime"])
        barrier = executor.barrier and phase == "run"
        containers = phase_containers(context, loaded, executor)
        go_file = containers[0].json.parent / f"{phase}.go" if barrier else None
        metrics = containers[0].json.parent / f"{phase}-metrics.jsonl"
        io = self.io_for(cell)
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
                session.engine, containers, io, session.progress.status, phase=phase,
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
        records = self._record(session, context, containers, codes, loaded, sampled, executor)
        session.progress.finish_phase()
        return records

    def _record(
        self,
        session: RunSession,
        context: PhaseContext,
        containers: list,
        codes: list[int],
        loaded: LoadedData,
        sampled: dict,
        executor: CellExecutor,
    ) -> list[PhaseRecord]:
        """Each container's row in the index and the folder; `CellFailed` naming the first
        that failed, after every row is kept."""
        records, failure = [], None
        for container, member, code, location in zip(
            containers, context.cell.members, codes, loaded.locations, strict=True
        ):
            result, problem = phase_outcome(code, container)
            if problem is not None:
                failure = failure or (
                    f"{context.phase} phase, container {container.container}: {problem}"
                )
            if result is None:
                continue
            record = phase_record(
                context, container, member, result, executor.applied,
                {**sampled.get(container.container, {}), "data_bytes": data_bytes(location)},
            )  # fmt: skip
            session.index.add_phase(dataclasses.asdict(record))
            context.folder.append_record(record)
            records.append(record)
            if record.status == "ok":
                self.completed_phases += 1
        if failure is not None:
            raise CellFailed(failure)
        return records

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

    # -- the end --------------------------------------------------------------------
    def release(self) -> None:
        """Everything but the backends, in order, each step even when one before failed:
        the data and its servers, the executors (docker: the run's containers, network
        and volumes), the local I/O groups, the middleware's tenants."""
        try:
            self.release_data()
        finally:
            executors = list(self._executors.values())
            self._executors.clear()
            release_each(executor.close for executor in executors)
        try:
            self.io.release()
        finally:
            controllers = list(self._middleware.values())
            self._middleware.clear()
            release_each(controller.release for controller in controllers)
