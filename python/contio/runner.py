"""Running an experiment: check it, then load and run every cell, repetition by repetition.

Order: for each load group (target × workload) and each repetition, a load phase
into a fresh data directory, then one run phase per thread level on that data.
Each phase's engine output lands in the results folder as soon as it ends, so an
interrupt or a failure keeps every completed phase; the backend's data
directories are removed whatever happens.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contio.backends.local_dir import LocalDirBackend
from contio.engine import engine_version, find_engine, interpret_exit, run_engine, ycsb_args
from contio.errors import EngineUsageError
from contio.host import describe_host
from contio.matrix import Cell, LoadGroup, cell_count, load_groups
from contio.progress import RunProgress
from contio.results import SUMMARY_CSV, PhaseRecord, ResultsFolder
from contio.runtime.process import ProcessRuntime
from contio.runtime.signals import interrupts_raise
from contio.spec import ExperimentSpec
from contio.summary import CellSummary, summarize
from contio.targets.engine_targets import TARGETS


@dataclass
class RunOutcome:
    """What a run produced, complete or not."""

    folder: ResultsFolder
    records: list[PhaseRecord]
    summaries: list[CellSummary]


ProgressFactory = Callable[[int, int, int], RunProgress]


class Runner:
    """Executes one validated spec."""

    def __init__(
        self,
        spec: ExperimentSpec,
        spec_text: str,
        results_root: Path,
        progress: ProgressFactory = RunProgress,
    ):
        self.spec = spec
        self.spec_text = spec_text
        self.results_root = results_root
        self._progress_factory = progress
        self.backend = LocalDirBackend(spec.name, spec.backend.path)
        self.runtime = ProcessRuntime(spec.runtime.stop_grace_seconds)
        self.groups = load_groups(spec)
        self.folder: ResultsFolder | None = None
        self.records: list[PhaseRecord] = []

    def run(self) -> RunOutcome:
        """Check the spec against the engine, then run it; see the module doc for the order."""
        engine = find_engine()
        # SIGINT/SIGTERM raise `Interrupted` from here on, so every `finally` below (and
        # the scratch directory of the check) cleans up; after the first signal, further
        # ones are ignored until cleanup is done (see contio.runtime.signals).
        with interrupts_raise():
            self.check_with_engine()
            self.folder = folder = ResultsFolder.create(self.results_root, self.spec.name)
            self._write_context(folder, engine_version())
            return self._run_all(engine, folder)

    def _run_all(self, engine: Path, folder: ResultsFolder) -> RunOutcome:
        phases = len(self.groups) * self.spec.repetitions * (1 + len(self.spec.threads))
        progress = self._progress_factory(phases, cell_count(self.groups), self.spec.repetitions)
        try:
            with progress:
                for group in self.groups:
                    for repetition in range(1, self.spec.repetitions + 1):
                        self._run_group(engine, folder, group, repetition, progress)
        finally:
            self.backend.teardown()
            summaries = summarize(self.records)
            if summaries:
                folder.write_rows(SUMMARY_CSV, [s.row() for s in summaries])
        return RunOutcome(folder, self.records, summaries)

    def check_with_engine(self) -> None:
        """Let the engine validate every (target, workload, properties) before anything runs.

        Each combination loads one record into a scratch directory that is removed
        at once; an unknown property, a bad value or a bad workload file makes the
        engine exit 2, which surfaces as `EngineUsageError` naming the cell.
        """
        with tempfile.TemporaryDirectory(prefix="contio-check-", dir=self.backend.base) as tmp:
            scratch = Path(tmp)
            for n, group in enumerate(self.groups):
                data_dir = scratch / f"data-{n}"
                data_dir.mkdir()
                properties = self._properties(group.target, data_dir)
                # One record is enough to open the target and exercise the properties.
                properties.update(recordcount="1", insertstart="0", insertcount="1")
                args = ycsb_args(
                    "load",
                    group.target,
                    [group.workload.path],
                    properties,
                    1,
                    scratch / f"{n}.json",
                )
                try:
                    run_engine(args, scratch / f"{n}.json")
                except EngineUsageError as exc:
                    raise EngineUsageError(
                        f"target {group.target!r} with workload {group.workload.name!r}: {exc}"
                    ) from None

    def _write_context(self, folder: ResultsFolder, version: str) -> None:
        folder.write_text("spec.yaml", self.spec_text)
        folder.write_json("spec.json", self.spec.model_dump(mode="json"))
        folder.write_json("host.json", describe_host(version))
        folder.write_json("backend.json", self.backend.describe())

    def _properties(self, target: str, data_dir: Path) -> dict[str, str]:
        properties = self.spec.properties_for(target)
        dir_property = TARGETS[target].data_dir_property
        if dir_property:
            properties[dir_property] = str(data_dir)
        return properties

    def _run_group(
        self,
        engine: Path,
        folder: ResultsFolder,
        group: LoadGroup,
        repetition: int,
        progress: RunProgress,
    ) -> None:
        data_dir = self.backend.prepare(group.slug)
        try:
            load_cell = dataclasses.replace(group.cells[0], threads=self.spec.load_threads)
            self._phase(engine, folder, group, load_cell, repetition, "load", data_dir, progress)
            for cell in group.cells:
                self._phase(engine, folder, group, cell, repetition, "run", data_dir, progress)
        finally:
            self.backend.release(data_dir)

    def _phase(
        self,
        engine: Path,
        folder: ResultsFolder,
        group: LoadGroup,
        cell: Cell,
        repetition: int,
        phase: str,
        data_dir: Path,
        progress: RunProgress,
    ) -> None:
        progress.start_phase(cell, repetition, phase)
        name = "load" if phase == "load" else f"run-t{cell.threads}"
        files = folder.phase_files(group.slug, repetition, name)
        properties = self._properties(cell.target, data_dir)
        if phase == "load":
            # A time limit meant for the run phases must not cut the load short:
            # the run phases would then read keys that were never inserted.
            properties.pop("maxexecutiontime", None)
        args = ycsb_args(
            phase, cell.target, [cell.workload.path], properties, cell.threads, files.json
        )
        code = self.runtime.run([str(engine), *args], stdout=files.stdout, stderr=files.stderr)
        result = interpret_exit(code, files.stderr.read_text(errors="replace"), files.json)
        record = PhaseRecord.from_result(
            result,
            workload=cell.workload.name,
            repetition=repetition,
            raw_json=folder.relative(files.json),
        )
        folder.append_record(record)
        self.records.append(record)
        progress.finish_phase()
