"""Running an experiment: check it, then run its cells in order, each until its stopping
rule is met, keeping every completed phase in the results index.

For each cell (see `contio.matrix` for the order): skip it with a reason if its backend
or its block I/O controls cannot be had here; otherwise repeat — load if the load
policy asks (`contio.phases`), drop caches if asked, run the cell's containers
together through the runtime's executor — until `contio.stopping` says it has enough.
Backends are provisioned on first use and torn down at the end, on a failure or on an
interrupt; data directories are released with them. With `resume`, cells already done
in the folder's index are passed over and a partly done cell goes on from its next
repetition.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contio.backend_levels import BackendPool
from contio.engine import engine_version, find_engine, interpret_exit, run_engine
from contio.errors import (
    BackendUnavailableError,
    EngineError,
    EngineUsageError,
    FileWorkloadError,
    InvalidSpecError,
)
from contio.executors import RUNTIMES
from contio.executors.base import CellExecutor, ContainerPhase
from contio.file_kinds import EngineCall
from contio.gluster.faults import FaultSchedule
from contio.host import describe_host
from contio.io_controls import IoController, process_controller
from contio.io_groups import backend_location, device_of
from contio.matrix import Cell, Member, expand
from contio.page_cache import drop_page_cache
from contio.phases import LoadedData, needs_load
from contio.progress import RunProgress
from contio.results import BACKENDS_JSON, SUMMARY_CSV, PhaseRecord, ResultsFolder
from contio.results_index import ResultsIndex
from contio.run_identity import check_resumable, spec_fingerprint
from contio.runtime.signals import interrupts_raise
from contio.spec import ExperimentSpec
from contio.spec_checks import run_problems
from contio.stopping import wants_another
from contio.summary import CellSummary, summarize
from contio.targets.engine_targets import TARGETS
from contio.workload_kinds import KINDS


@dataclass
class RunOutcome:
    """What a run produced, complete or not."""

    folder: ResultsFolder
    summaries: list[CellSummary]


ProgressFactory = Callable[[list[Cell], ExperimentSpec], RunProgress]


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
    ):
        self.spec = spec
        self.spec_text = spec_text
        self.results_root = results_root
        self.profile = profile
        self.resume = resume
        self._progress_factory = progress
        self.cells = expand(spec)
        self.pool = BackendPool(spec)
        self.io: IoController = process_controller()
        self.folder: ResultsFolder | None = None
        self.index: ResultsIndex | None = None
        self.completed_phases = 0
        self._session = 0
        self._loaded: LoadedData | None = None
        self._executors: dict[str, CellExecutor] = {}

    def run(self) -> RunOutcome:
        """Check the spec against the engine, then run it; see the module doc for the order."""
        engine = find_engine()
        # SIGINT/SIGTERM raise `Interrupted` from here on, so every `finally` below cleans
        # up; after the first signal, further ones are ignored until cleanup is done.
        with interrupts_raise():
            if self.resume is not None:
                check_resumable(self.resume, self.spec, self.profile)
            problems = run_problems(self.spec)
            if problems:
                raise InvalidSpecError(self.spec.name, problems)
            self.check_with_engine()
            folder, index = self._open_results()
            try:
                return self._run_all(engine, folder, index)
            finally:
                index.close()

    def _open_results(self) -> tuple[ResultsFolder, ResultsIndex]:
        if self.resume is not None:
            folder, index = ResultsFolder(self.resume), ResultsIndex.open(self.resume)
        else:
            folder = ResultsFolder.create(self.results_root, self.spec.name)
            index = ResultsIndex.create(folder.path)
            folder.write_text("spec.yaml", self.spec_text)
            folder.write_json("spec.json", self.spec.model_dump(mode="json"))
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
        return folder, index

    def _run_all(self, engine: Path, folder: ResultsFolder, index: ResultsIndex) -> RunOutcome:
        progress = self._progress_factory(self.cells, self.spec)
        try:
            with progress:
                for cell in self.cells:
                    if index.cell_status(cell.key) == "done":
                        progress.cell_done(cell, already=True)
                        continue
                    self._run_cell(engine, folder, index, cell, progress)
        finally:
            self._release_data()
            try:
                self.io.release()
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
                folder.replace_derived(SUMMARY_CSV, [s.row() for s in summaries])
        return RunOutcome(folder, summaries)

    def check_with_engine(self) -> None:
        """Let the engine validate every (target, workload, properties) before anything runs.

        Each distinct member loads one record (file kinds: one block) into a scratch
        directory that is removed at once; an unknown property, a bad value or a bad workload file makes the
        engine exit 2, which surfaces as `EngineUsageError` naming the cell.
        """
        members = {m: c for c in reversed(self.cells) for m in c.members}
        with tempfile.TemporaryDirectory(prefix="contio-check-") as tmp:
            scratch = Path(tmp)
            for n, (member, cell) in enumerate(members.items()):
                data_dir = scratch / f"data-{n}"
                data_dir.mkdir()
                call = EngineCall(
                    member.target,
                    member.workload,
                    self._properties(member, data_dir, "run"),
                    1,
                    scratch / f"check-{n}.json",
                    data_dir,
                    scratch,
                )
                try:
                    run_engine(KINDS[member.kind].check_args(call), call.json_path)
                except (EngineUsageError, FileWorkloadError) as exc:
                    raise EngineUsageError(f"cell {cell.index} ({cell.label}): {exc}") from None

    def _properties(self, member: Member, data_dir: Path | None, phase: str) -> dict[str, str]:
        properties = dict(member.properties)
        if phase == "run":
            properties.update(self.spec.stop.engine_properties())
        else:
            # A time limit meant for the run phases must not cut the load short:
            # the run phases would then read keys that were never inserted.
            properties.pop("maxexecutiontime", None)
        properties["status.interval"] = "1"
        dir_property = TARGETS[member.target].data_dir_property
        if dir_property and data_dir is not None:
            properties[dir_property] = str(data_dir)
        return properties

    def _executor(self, runtime: str) -> CellExecutor:
        if runtime not in self._executors:
            module, _, name = RUNTIMES[runtime].partition(":")
            cls = getattr(importlib.import_module(module), name)
            self._executors[runtime] = cls(self.spec.runtime.stop_grace_seconds)
        return self._executors[runtime]

    def _skip_reason(self, cell: Cell) -> str | None:
        backend = cell.level["backend"]
        reason = self.pool.unavailable(backend)
        if reason:
            return f"backend {backend!r} is unavailable: {reason}"
        controls = self.spec.io_controls.get(cell.level.get("io_controls", ""))
        if controls is not None:
            return self.io.unavailable_reason(controls)
        return None

    def _run_cell(
        self,
        engine: Path,
        folder: ResultsFolder,
        index: ResultsIndex,
        cell: Cell,
        progress: RunProgress,
    ) -> None:
        reason = self._skip_reason(cell)
        if reason is None:
            try:
                backend = self.pool.get(cell.level["backend"])
            except BackendUnavailableError as exc:
                reason = f"backend {cell.level['backend']!r} is unavailable: {exc}"
            else:
                # With the backend there, the disk the controls apply to is known: a
                # weight without BFQ (cgroup v1) skips the cell before it starts.
                controls = self.spec.io_controls.get(cell.level.get("io_controls", ""))
                if controls is not None:
                    device = device_of(controls, backend_location(backend))
                    reason = self.io.unavailable_reason(controls, device=device)
        if reason is not None:
            index.set_cell_status(cell.key, "skipped", reason)
            progress.cell_skipped(cell, reason)
            return
        index.set_cell_status(cell.key, "running")
        throughputs = index.completed_throughputs(cell.key, len(cell.members))
        repetition = index.last_repetition(cell.key)
        while wants_another(self.spec.stop, self.spec.repetition_count, throughputs):
            repetition += 1
            progress.start_repetition(cell, repetition, throughputs)
            data_dirs = self._ensure_load(engine, folder, index, cell, repetition, progress)
            if self.spec.drop_caches:
                drop_page_cache()
            records = self._phase(
                engine, folder, index, cell, repetition, "run", data_dirs, progress
            )
            if not cell.read_only and self._loaded is not None:
                self._loaded.fresh = False  # later cells on this load see changed data
            throughputs.append(sum(r.steady_ops_per_sec for r in records))
        index.set_cell_status(cell.key, "done")
        progress.cell_done(cell)

    def _ensure_load(
        self,
        engine: Path,
        folder: ResultsFolder,
        index: ResultsIndex,
        cell: Cell,
        repetition: int,
        progress: RunProgress,
    ) -> list[Path]:
        if not needs_load(self.spec.load.reuse, self._loaded, cell):
            assert self._loaded is not None
            return self._loaded.dirs
        self._release_data()
        backend = self.pool.get(cell.level["backend"])
        dirs = []
        for k in range(1, len(cell.members) + 1):
            path = backend.prepare(f"{cell.slug}-c{k}")
            assert path is not None  # every backend hands out directories when given a label
            dirs.append(path)
        self._loaded = LoadedData(
            cell.load_key(), cell.level["backend"], dirs, fresh=True, members=list(cell.members)
        )
        self._phase(engine, folder, index, cell, repetition, "load", dirs, progress)
        return dirs

    def _faults(self, cell: Cell) -> FaultSchedule | None:
        """The spec's node-stop events, started now, when the cell's backend is gluster."""
        if not self.spec.events:
            return None
        backend = self.pool.get(cell.level["backend"])
        cluster, volume = getattr(backend, "cluster", None), getattr(backend, "volume", None)
        if cluster is None or volume is None:
            return None  # events play on gluster levels only
        schedule = FaultSchedule(cluster, volume, list(self.spec.events))
        schedule.start()
        return schedule

    def _finish_faults(
        self, schedule: FaultSchedule, folder: ResultsFolder, cell: Cell, repetition: int
    ) -> None:
        """Wait for restarts and heals (an interrupted run still restarts a stopped node);
        the records go to `raw/<cell>/s<session>-rep<r>/events.json`."""
        schedule.cancel()  # events not yet begun when the phase ended are skipped
        try:
            schedule.join(timeout=max(e.heal_timeout for e in self.spec.events) + 120)
        finally:
            folder.write_json(
                f"raw/{cell.slug}/s{self._session}-rep{repetition}/events.json",
                [r.as_dict() for r in schedule.records],
            )

    def _release_data(self) -> None:
        if self._loaded is not None:
            loaded, self._loaded = self._loaded, None
            backend = self.pool.get(loaded.backend)
            self._clean_up(loaded)
            for path in loaded.dirs:
                backend.release(path)

    def _clean_up(self, loaded: LoadedData) -> None:
        """The kinds' own cleanup (sysbench `cleanup` removes its files) before release.

        Best effort: the backend removes the directory right after in any case.
        """
        with tempfile.TemporaryDirectory(prefix="contio-cleanup-") as tmp:
            for n, (member, data_dir) in enumerate(zip(loaded.members, loaded.dirs)):
                json_path = Path(tmp) / f"{n}.json"
                call = EngineCall(
                    member.target, member.workload, dict(member.properties), 1, json_path,
                    data_dir, Path(tmp),
                )  # fmt: skip
                args = KINDS[member.kind].engine_args("cleanup", call)
                if args:
                    try:
                        run_engine(args, json_path)
                    except EngineError:
                        pass  # the files go with the directory

    def _phase(
        self,
        engine: Path,
        folder: ResultsFolder,
        index: ResultsIndex,
        cell: Cell,
        repetition: int,
        phase: str,
        data_dirs: list[Path],
        progress: RunProgress,
    ) -> list[PhaseRecord]:
        progress.start_phase(cell, repetition, phase)
        controls = self.spec.io_controls.get(cell.level.get("io_controls", ""))
        containers = []
        for k, (member, data_dir) in enumerate(zip(cell.members, data_dirs), start=1):
            files = folder.phase_files(cell.slug, self._session, repetition, phase, k)
            threads = member.threads if phase == "run" else self.spec.load_thread_count
            call = EngineCall(
                member.target,
                member.workload,
                self._properties(member, data_dir, phase),
                threads,
                files.json,
                data_dir,
                files.json.parent,
            )
            args = KINDS[member.kind].engine_args(phase, call)
            group = None
            if phase == "run" and controls is not None and k <= len(controls.groups):
                group = controls.groups[k - 1]
            device = device_of(controls, data_dir) if group is not None else None
            containers.append(
                ContainerPhase(k, args, files.json, files.stdout, files.stderr, group, device)
            )
        executor = self._executor(cell.level["runtime"])
        faults = self._faults(cell) if phase == "run" else None
        try:
            codes = executor.run_phase(engine, containers, self.io, progress.status)
        finally:
            if faults is not None:
                self._finish_faults(faults, folder, cell, repetition)
        applied = executor.applied
        records, failure = [], None
        for container, member, code in zip(containers, cell.members, codes):
            try:
                result = interpret_exit(
                    code, container.stderr.read_text(errors="replace"), container.json
                )
            except EngineError as exc:
                failure = failure or EngineError(
                    f"cell {cell.index} ({cell.label}), repetition {repetition}, "
                    f"container {container.container}: {exc}",
                    exc.exit_code,
                )
                continue
            record = PhaseRecord.from_result(
                result,
                warmup_seconds=self.spec.warmup_seconds,
                cell_key=cell.key,
                cell_index=cell.index,
                session=self._session,
                repetition=repetition,
                container=container.container,
                workload=member.workload.name,
                raw_json=folder.relative(container.json),
                phase=phase,  # the runner's name: sysbench calls its load `prepare`
                io_control=json.dumps(applied[container.container], default=str)
                if container.container in applied
                else "",
            )
            index.add_phase(dataclasses.asdict(record))
            folder.append_record(record)
            records.append(record)
            self.completed_phases += 1
        if failure is not None:
            raise failure
        progress.finish_phase()
        return records
