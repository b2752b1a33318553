"""How each container's engine is invoked in a phase: its properties (stop rule, data
directory, its database server's binding, the start barrier), where its data goes, what
its exit means, the engine's check of a spec before anything runs, and the workload
kinds' cleanup when data is released. The runner (`contio.run.runner`) puts these together.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from pathlib import Path
from typing import Any

from contio.backends.interface import StorageBackend
from contio.cells.bindings import EngineBinding, unreachable_binding
from contio.cells.executor import CellExecutor, ContainerPhase
from contio.containers.data_location import DataLocation, HostPath
from contio.engine.invocation import interpret_exit, run_engine
from contio.engine.result import EngineResult, read_result
from contio.errors import (
    EngineError,
    EngineOutputError,
    EngineUsageError,
    FileWorkloadError,
    WorkloadPropertyError,
)
from contio.experiment.matrix import Cell, Member
from contio.experiment.spec import ExperimentSpec
from contio.host.owner_lock import owned_temp_dir
from contio.qos.control_spec import IoControlSet, IoGroupControls
from contio.qos.io_groups import device_of
from contio.results.phase_record import PhaseRecord
from contio.run.loads import LoadedData
from contio.run.phase_context import PhaseContext
from contio.targets.engine_targets import engine_target_of
from contio.workload.file_kinds import EngineCall
from contio.workload.kinds import KINDS, SERVER_KINDS


def check_with_engine(spec: ExperimentSpec, cells: list[Cell]) -> None:
    """Let the engine validate every (target, workload, properties) before anything runs.

    Each distinct member loads at most one record (file kinds: one block) into a
    scratch directory that is removed at once, with the real values of everything
    else (record counts, thread counts, sizes: `WorkloadKind.check_calls`); an unknown
    property, a bad value or a bad workload file makes the engine exit 2, which
    surfaces as `EngineUsageError` naming the cell.
    """
    members = {m: c for c in reversed(cells) for m in c.members}
    with owned_temp_dir("contio-check-") as scratch:
        for n, (member, cell) in enumerate(members.items()):
            data_dir = scratch / f"data-{n}"
            data_dir.mkdir()
            # Run and load-only properties together: the engine checks each once.
            properties = {
                **engine_properties(spec, member, data_dir, "run"),
                **spec.load_properties_for(member.target),
            }
            target = member.target
            if member.database:
                # No server yet: the binding checks every property, then fails to
                # connect to a closed port (exit 1), which is all this check needs.
                binding = unreachable_binding(member.target)
                target, properties = binding.target, {**properties, **binding.properties}
            # The larger thread count of the cell's phases: the engine refuses a count it
            # cannot run, and starts no more threads than the check has operations.
            threads = max(member.threads, spec.load_thread_count)
            call = EngineCall(
                target=target,
                workload=member.workload,
                properties=properties,
                threads=threads,
                json_path=scratch / f"check-{n}.json",
                data_dir=data_dir,
                scratch=scratch,
            )
            try:
                for args in KINDS[member.kind].check_calls(call):
                    run_engine(args, call.json_path)
            except (EngineUsageError, FileWorkloadError, WorkloadPropertyError) as exc:
                raise EngineUsageError(f"cell {cell.index} ({cell.label}): {exc}") from None
            except EngineError:
                if not member.database:
                    raise


def engine_properties(
    spec: ExperimentSpec, member: Member, data_dir: Path | None, phase: str
) -> dict[str, str]:
    """Engine properties of `member` in `phase`: the spec's, the stop rule's (run) or
    `load.properties` (load), the live display's status interval, the data directory
    when the target keeps one."""
    properties = dict(member.properties)
    if phase == "run":
        properties.update(spec.stop.engine_properties())
    else:
        # A time limit meant for the run phases must not cut the load short:
        # the run phases would then read keys that were never inserted.
        properties.pop("maxexecutiontime", None)
        properties.update(spec.load_properties_for(member.target))
    properties["status.interval"] = "1"
    dir_property = engine_target_of(member.target).data_dir_property
    if dir_property and data_dir is not None:
        properties[dir_property] = str(data_dir)
    return properties


def container_phase(
    context: PhaseContext,
    position: int,
    member: Member,
    location: DataLocation,
    binding: EngineBinding | None,
    executor: CellExecutor,
    barrier: bool,
    group: IoGroupControls | None,
    controls: IoControlSet | None,
) -> ContainerPhase:
    """Container `position`'s engine invocation in `context`'s phase: on its own data at
    `location`, or against its database server (`binding`)."""
    spec, phase, files = context.spec, context.phase, context.files(position)
    data_dir = None if binding is not None else executor.engine_data_dir(location)
    properties = engine_properties(spec, member, data_dir, phase)
    target = member.target
    if binding is not None:
        target = binding.target
        properties.update(binding.properties)  # the server of this run, whatever was set
    ready = None
    if barrier and member.kind in SERVER_KINDS:  # file kinds have no start barrier
        ready = files.json.with_suffix(".ready")
        properties["startbarrier.ready"] = str(ready)
        properties["startbarrier.go"] = str(files.json.parent / f"{phase}.go")
    threads = member.threads if phase == "run" else spec.load_thread_count
    call = EngineCall(
        target=target,
        workload=member.workload,
        properties=properties,
        threads=threads,
        json_path=files.json,
        data_dir=data_dir,
        scratch=files.json.parent,
    )
    ycsb_file = member.workload.path if member.kind == "ycsb" else None
    return ContainerPhase(
        position,
        KINDS[member.kind].engine_args(phase, call),
        files.json,
        files.stdout,
        files.stderr,
        group,
        device_of(controls, data_dir) if group is not None else None,
        data=None if binding is not None else location,
        inputs=(ycsb_file,) if ycsb_file is not None else (),
        ready_file=ready,
        memory_limit=None if binding is not None else spec.target_options_for(target).memory_limit,
    )


def phase_containers(
    context: PhaseContext, loaded: LoadedData, executor: CellExecutor
) -> list[ContainerPhase]:
    """Every container's invocation in `context`'s phase of its cell, on the loaded data."""
    cell, phase = context.cell, context.phase
    controls = context.spec.controls_for(cell.level)
    barrier = executor.barrier and phase == "run"
    containers = []
    for k in range(1, len(cell.members) + 1):
        group = None
        if phase == "run" and controls is not None and k <= len(controls.groups):
            group = controls.groups[k - 1]
        containers.append(
            container_phase(
                context,
                k,
                cell.members[k - 1],
                loaded.locations[k - 1],
                loaded.session.bindings[k - 1] if loaded.session is not None else None,
                executor,
                barrier,
                group,
                controls,
            )
        )
    return containers


def phase_record(
    context: PhaseContext,
    container: ContainerPhase,
    member: Member,
    result: EngineResult,
    applied: dict[int, dict[str, Any]],
    sampled: dict[str, Any],
) -> PhaseRecord:
    """The results row of one container's phase, with its metrics columns."""
    record = PhaseRecord.from_result(
        result,
        warmup_seconds=context.spec.warmup_seconds,
        cell_key=context.cell.key,
        cell_index=context.cell.index,
        session=context.session,
        repetition=context.repetition,
        container=container.container,
        workload=member.workload.name,
        raw_json=context.folder.relative(container.json),
        phase=context.phase,  # the runner's name: sysbench calls its load `prepare`
        io_control=json.dumps(applied[container.container], default=str)
        if container.container in applied
        else "",
        **sampled,
    )
    # The cell's target (`mariadb`), not the binding that spoke to it (`mysql`).
    return dataclasses.replace(record, target=member.target)


def place_data(
    backend: StorageBackend, label: str, runtime: str, tenant: str | None = None
) -> DataLocation:
    """Where one container's data goes: a fresh host directory (on its middleware
    tenant's own volume, if it has a tenant), or under docker the backend's own choice
    (a Docker volume for `mode: docker-volume`, NFS volumes)."""
    if tenant is not None:
        return HostPath(path=backend.tenant_directory(label, tenant))
    if runtime == "docker" and backend.capabilities.docker_volumes:
        return backend.data_location(label)
    return HostPath(path=backend.new_directory(label))


def phase_outcome(code: int, container: ContainerPhase) -> tuple[EngineResult | None, str | None]:
    """The phase's result document (also of a failed phase, when it wrote one) and what
    went wrong, if anything."""
    try:
        return interpret_exit(
            code, container.stderr.read_text(errors="replace"), container.json
        ), None
    except (EngineError, EngineUsageError) as exc:
        try:
            return read_result(container.json), str(exc)
        except EngineOutputError:
            return None, str(exc)


def clean_up(loaded: LoadedData) -> None:
    """The kinds' own cleanup (sysbench `cleanup` removes its files) before release.

    Best effort: the backend removes the directory right after in any case.
    """
    with owned_temp_dir("contio-cleanup-") as tmp:
        for n, (member, location) in enumerate(zip(loaded.members, loaded.locations, strict=True)):
            if member.database or not isinstance(location, HostPath):
                continue
            json_path = tmp / f"{n}.json"
            call = EngineCall(
                target=member.target,
                workload=member.workload,
                properties=dict(member.properties),
                threads=1,
                json_path=json_path,
                data_dir=location.path,
                scratch=tmp,
            )
            args = KINDS[member.kind].engine_args("cleanup", call)
            if args:
                # A failed cleanup is harmless: the files go with the directory.
                with contextlib.suppress(EngineError, EngineUsageError):
                    run_engine(args, json_path)
