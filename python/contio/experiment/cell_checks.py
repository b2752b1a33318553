"""Checks of an experiment's cells: whether each cell's targets, backend and block I/O
groups can run with its runtime.

A `tpcc` workload runs on `mariadb` or `postgres` only, a `cassandra-stress` one on
`cassandra` only. A database target's server runs in a container (runtime `docker`),
and so does an embedded engine given a memory limit (`target_options.btree.memory_limit`);
a backend level
that hands out Docker volumes needs containers too; block I/O groups are applied to
local process groups (runtime `process`). Each problem names the field that brought
the level in (`factors.target[1]`, `mixes.pair[0].target`, `backends.nfs.mount_via`,
`factors.io_controls[0]`), once, however many cells share it. Before those: whether
this host can start each cell's containers (`contio.experiment.host_limits`); after:
what each distinct container runs (`contio.experiment.member_checks`).
"""

from __future__ import annotations

from contio.backends import registry
from contio.errors import InvalidSpecError, SpecError
from contio.experiment.checks import docker_volume_option
from contio.experiment.host_limits import capacity_problems
from contio.experiment.matrix import Cell, Member, expand
from contio.experiment.member_checks import member_problems
from contio.experiment.space_checks import space_problems
from contio.experiment.spec import ExperimentSpec
from contio.workload.cstress_kind import CSTRESS_TARGETS
from contio.workload.tpcc_kind import TPCC_TARGETS

# Kinds written for one kind of server: kind → (the targets it runs on, why).
KIND_TARGETS: dict[str, tuple[tuple[str, ...], str]] = {
    "tpcc": (TPCC_TARGETS, "TPC-C runs on a SQL server"),
    "cassandra-stress": (CSTRESS_TARGETS, "cassandra-stress drives Cassandra's CQL"),
}


def check_cells(spec: ExperimentSpec) -> list[SpecError]:
    """Every problem of the spec's cells, in cell order; [] when they all can run."""
    try:
        cells = expand(spec)
    except InvalidSpecError as exc:
        return list(exc.problems)
    too_many = capacity_problems(spec, cells)
    if too_many:
        return too_many  # checked first: what follows looks at every container
    found: dict[str, SpecError] = {}
    members: dict[Member, Cell] = {}
    for cell in cells:
        for problem in _cell_problems(spec, cell):
            found.setdefault(str(problem), problem)
        for member in cell.members:
            members.setdefault(member, cell)
    for member, cell in members.items():
        for problem in member_problems(spec, cell, member):
            found.setdefault(str(problem), problem)
    host = _backend_host_problems(spec, cells)
    return list(found.values()) + host + ([] if host else space_problems(spec, cells))


def _backend_host_problems(spec: ExperimentSpec, cells: list[Cell]) -> list[SpecError]:
    """What this host lacks for each backend level a cell uses (`registry.host_problems`:
    a missing path or device, a device that holds data or is in use): refused by
    `contio plan` and `contio run` alike, before anything is made."""
    problems = []
    used = [c.level["backend"] for c in cells]
    used += [m.backend for c in cells for m in c.members if m.backend]  # a mix member's own
    for name in dict.fromkeys(used):
        prefix = "backend" if not spec.backends else f"backends.{name}"
        for option, message in registry.host_problems(spec.backend_definitions()[name]):
            problems.append(SpecError(f"{prefix}.{option}", message))
    return problems


def _cell_problems(spec: ExperimentSpec, cell: Cell) -> list[SpecError]:
    runtime = cell.level["runtime"]
    problems = [
        _kind_needs_target(spec, cell, member)
        for member in dict.fromkeys(cell.members)
        if member.kind in KIND_TARGETS and member.target not in KIND_TARGETS[member.kind][0]
    ]
    if runtime != "docker":
        for member in dict.fromkeys(cell.members):
            if member.database:
                problems.append(_database_needs_docker(spec, cell, member, runtime))
            elif spec.target_options_for(member.target).memory_limit is not None:
                problems.append(_memory_limit_needs_docker(spec, cell, member, runtime))
        problems += _volume_needs_docker(spec, cell, runtime)
    else:
        problems += _groups_need_processes(spec, cell)
    problems += _middleware_needs_tenant_volumes(spec, cell)
    return problems


def _middleware_needs_tenant_volumes(spec: ExperimentSpec, cell: Cell) -> list[SpecError]:
    """A middleware level's tenants each need a volume of their own on a local cluster."""
    controls = spec.controls_for(cell.level)
    if controls is None or controls.middleware is None:
        return []
    name = cell.level["backend"]
    definition = spec.backend_definitions()[name]
    prefix = "backend" if not spec.backends else f"backends.{name}"
    if definition.get("type") != "gluster" or not definition.get("volume_per_tenant"):
        return [
            SpecError(
                f"{prefix}.volume_per_tenant",
                f"io_controls level {cell.level['io_controls']!r} uses the I/O middleware, "
                "whose tenants each need a Gluster volume of their own: give the cell a "
                "backend with `type: gluster` and `volume_per_tenant: true`",
            )
        ]
    if definition.get("inventory") is not None:
        return [
            SpecError(
                f"{prefix}.inventory",
                "the I/O middleware runs on the one-machine cluster only (an SSH "
                "inventory is not supported yet); remove `inventory`",
            )
        ]
    return []


def _how_to_fix(spec: ExperimentSpec, level: str, runtime: str) -> str:
    if spec.factors.runtime is not None and len(spec.factors.runtime) > 1:
        return f"exclude it: `exclude: [{{{level}, runtime: {runtime}}}]`"
    return "set `runtime: {type: docker}`"


def _database_needs_docker(
    spec: ExperimentSpec, cell: Cell, member: Member, runtime: str
) -> SpecError:
    return SpecError(
        _target_path(spec, cell, member),
        f"{member.target!r} is a database target: its server runs in a container, so it "
        f"needs runtime 'docker', not {runtime!r} (cell {cell.index}: {cell.label}); "
        + _how_to_fix(spec, f"target: {member.target}", runtime),
    )


def _memory_limit_needs_docker(
    spec: ExperimentSpec, cell: Cell, member: Member, runtime: str
) -> SpecError:
    # A local process has no memory cgroup of its own: the limit would silently not hold.
    return SpecError(
        f"target_options.{member.target}.memory_limit",
        f"a memory limit for {member.target!r} needs its engine in a container: runtime "
        f"'docker', not {runtime!r} (cell {cell.index}: {cell.label}); "
        + _how_to_fix(spec, f"target: {member.target}", runtime),
    )


def _kind_needs_target(spec: ExperimentSpec, cell: Cell, member: Member) -> SpecError:
    targets, why = KIND_TARGETS[member.kind]
    return SpecError(
        _target_path(spec, cell, member),
        f"{member.target!r} cannot run workload {member.workload.name!r} (kind "
        f"{member.kind}): {why}; allowed targets: {', '.join(targets)} "
        f"(cell {cell.index}: {cell.label})",
    )


def _target_path(spec: ExperimentSpec, cell: Cell, member: Member) -> str:
    """Where the spec names `member`'s target: its mix member, or the target factor."""
    mix = cell.level.get("mix")
    if mix is not None:
        for j, part in enumerate(spec.mixes[mix]):
            if part.target == member.target:
                return f"mixes.{mix}[{j}].target"
    if spec.factors.target is not None:
        return f"factors.target[{spec.factors.target.index(member.target)}]"
    if spec.targets is not None:
        return f"targets[{spec.targets.index(member.target)}]"
    return "factors.target"


def _volume_needs_docker(spec: ExperimentSpec, cell: Cell, runtime: str) -> list[SpecError]:
    name = cell.level["backend"]
    found = docker_volume_option(spec.backend_definitions()[name])
    if found is None:
        return []
    option, allowed = found
    prefix = "backend" if not spec.backends else f"backends.{name}"
    return [
        SpecError(
            f"{prefix}.{option}",
            f"'docker-volume' cannot combine with runtime {runtime!r} (it needs a host "
            f"directory); allowed here: {allowed}, or run its cells with runtime 'docker'",
        )
    ]


def _groups_need_processes(spec: ExperimentSpec, cell: Cell) -> list[SpecError]:
    level = cell.level.get("io_controls", "")
    controls = spec.io_controls.get(level)
    if controls is None or controls.empty:
        return []
    levels = spec.factors.io_controls or []
    path = f"factors.io_controls[{levels.index(level)}]" if level in levels else "io_controls"
    return [
        SpecError(
            path,
            f"{level!r}: block I/O groups are applied to local process groups; runtime "
            "'docker' does not apply them yet (use runtime 'process' for these cells)",
        )
    ]
