"""The cells of an experiment: the factorial of its factor levels (or its explicit cells),
less exclusions, in run order, grouped by the data set they load.

A cell is one level of every factor. Its containers each run one engine (a member of
the cell's mix, or `containers` copies of its workload) on data of their own. Cells
that load the same data set — same backend, runtime, containers and, per container,
target and data-defining properties — form a load group and sit next to each other,
read-only ones first, so one load serves them (see `contio.run.loads`).
"""

from __future__ import annotations

import functools
import itertools
import json
from dataclasses import dataclass, field, replace
from typing import Any

from contio.errors import InvalidSpecError, SpecError
from contio.experiment.parts import NO_CONTROLS
from contio.experiment.spec import ExperimentSpec, engine_value
from contio.targets.engine_targets import engine_target_of, is_database
from contio.workload.files import WorkloadRef
from contio.workload.kinds import KINDS, SERVER_KINDS, read_properties

# Properties that define what the load phase writes: cells differing in any of these
# (or in a target-namespaced property) need their own load.
DATASET_PROPERTIES = (
    "recordcount",
    "insertstart",
    "insertcount",
    "fieldcount",
    "fieldlength",
    "minfieldlength",
    "fieldlengthdistribution",
    "fieldnameprefix",
    "insertorder",
    "zeropadding",
    "table",
)


@dataclass(frozen=True)
class Member:
    """What one container of a cell runs."""

    target: str
    workload: WorkloadRef
    threads: int
    properties: tuple[tuple[str, str], ...]
    """Engine properties for every phase: the spec's, the cell's property levels."""
    tenant: str | None = None
    """The I/O middleware tenant whose volume holds its data (an `io_controls` level
    with `middleware`); None: the backend's own storage."""
    backend: str | None = None
    """The backend level holding its data when it is not the cell's (a mix member's own
    `backend`)."""

    @property
    def kind(self) -> str:
        """The workload kind (`contio.workload.kinds.KINDS`) that turns it into engine args."""
        return self.workload.kind

    def merged_properties(self) -> dict[str, str]:
        """The workload file's properties overridden by the spec's (what the engine sees)."""
        return dict(_merged_properties(self))

    def dataset(self) -> tuple[Any, ...]:
        return _dataset(self)

    def _dataset(self) -> tuple[Any, ...]:
        if self.kind == "tpcc":  # one database per target: its load is the target's own
            kind = KINDS[self.kind]
            return self.kind, self.target, kind.dataset(self.workload, dict(self.properties))
        if self.kind != "ycsb":
            kind = KINDS[self.kind]
            return self.kind, kind.dataset(self.workload, dict(self.properties))
        merged = self.merged_properties()
        own = engine_target_of(self.target)
        keys = sorted(k for k in merged if k in DATASET_PROPERTIES or own.owns_property(k))
        return self.target, tuple((k, merged[k]) for k in keys)

    def placement(self) -> tuple[Any, ...]:
        """Its data set and where it lives: data on a tenant's volume, or on a backend of
        its own, is not another's."""
        if self.tenant is None and self.backend is None:
            return self.dataset()
        return (*self.dataset(), self.tenant, self.backend)

    @property
    def writes(self) -> bool:
        return _writes(self)

    @property
    def database(self) -> bool:
        """Whether it drives a database target's server (a container of its own)."""
        return self.kind in SERVER_KINDS and is_database(self.target)


# What a member's workload file says is read once per distinct member: a cell of N
# containers holds N equal members, and the plan prices each of them (issue 29: a
# cell of 3000 containers read its workload file 800,000 times).
@functools.lru_cache(maxsize=4096)
def _merged_properties(member: Member) -> tuple[tuple[str, str], ...]:
    if member.workload.path is None or member.kind != "ycsb":
        return member.properties
    return tuple({**read_properties(member.workload.path), **dict(member.properties)}.items())


@functools.lru_cache(maxsize=4096)
def _dataset(member: Member) -> tuple[Any, ...]:
    return member._dataset()


@functools.lru_cache(maxsize=4096)
def _writes(member: Member) -> bool:
    return KINDS[member.kind].writes(member.workload, dict(member.properties))


@dataclass(frozen=True)
class Cell:
    """One combination of factor levels; measured once per repetition."""

    index: int
    levels: tuple[tuple[str, Any], ...]
    """Factor → level, in factor order; `properties.<key>` for property factors."""
    members: tuple[Member, ...] = field(compare=False)
    """One per container."""

    @property
    def level(self) -> dict[str, Any]:
        return dict(self.levels)

    @property
    def key(self) -> str:
        """A stable identity across runs of the same spec (the results index uses it)."""
        return json.dumps(dict(self.levels), sort_keys=True)

    @property
    def label(self) -> str:
        shown = {k: v for k, v in self.levels if k not in ("runtime",) and v is not None}
        if shown.get("io_controls") == NO_CONTROLS:
            del shown["io_controls"]
        return " · ".join(f"{k}={v}" for k, v in shown.items())

    @property
    def slug(self) -> str:
        """A file-name-safe folder name for the cell's raw output."""
        return f"cell{self.index:03d}"

    @property
    def read_only(self) -> bool:
        return not any(m.writes for m in self.members)

    def load_key(self) -> tuple[Any, ...]:
        level = self.level
        return (level["backend"], level["runtime"], tuple(m.placement() for m in self.members))


def _factor_levels(spec: ExperimentSpec) -> dict[str, list[Any]]:
    """Every factor's levels, in the order cells vary (threads innermost)."""
    factors = spec.factors
    levels: dict[str, list[Any]] = {
        "backend": factors.backend or list(spec.backend_definitions())[:1],
    }
    mixed = [m for name in factors.mix or [] for m in spec.mixes[name]]
    named = factors.target is not None or spec.targets is not None
    files_only = not mixed and all(w.kind not in SERVER_KINDS for w in spec.workload_levels())
    # Mix members that need a target from the factor: those without their own that
    # drive one (file workloads have none), so a mix whose file member names no target
    # is not labelled with a target level that none of its members runs.
    untargeted = [m for m in mixed if not m.target and m.workload.kind in SERVER_KINDS]
    if files_only and not named:
        pass  # file workloads (sysbench, fio) have no target: the engine's "files"
    elif named or not mixed or untargeted:
        levels["target"] = spec.target_levels()  # else every mix member names its own
    if factors.mix is not None:
        levels["mix"] = list(factors.mix)
    else:
        levels["workload"] = spec.workload_levels()
    levels["containers"] = factors.containers or [1]
    levels["io_controls"] = factors.io_controls or [NO_CONTROLS]
    levels["runtime"] = factors.runtime or [spec.runtime.type]
    for key, values in factors.properties.items():
        levels[f"properties.{key}"] = list(values)
    levels["threads"] = spec.thread_levels()
    return levels


def _shown(value: Any) -> Any:
    return value.name if isinstance(value, WorkloadRef) else value


def _as_text(value: Any) -> str:
    value = _shown(value)
    return "null" if value is None else engine_value(value)


def _flatten(entry: dict[str, Any]) -> dict[str, Any]:
    flat = {k: v for k, v in entry.items() if k != "properties"}
    for key, value in (entry.get("properties") or {}).items():
        flat[f"properties.{key}"] = value
    return flat


def _members(spec: ExperimentSpec, chosen: dict[str, Any]) -> tuple[Member, ...]:
    props = {k[len("properties.") :]: v for k, v in chosen.items() if k.startswith("properties.")}
    members = []
    parts = spec.mixes[chosen["mix"]] if "mix" in chosen else [None]
    for part in parts:
        target = (part.target if part and part.target else None) or chosen.get("target", "null")
        # (chosen has no "target" only when every mix member names its own.)
        workload = part.workload if part else chosen["workload"]
        threads = (part.threads if part and part.threads else None) or chosen["threads"]
        common = spec.properties_for(target)
        common.update({k: engine_value(v) for k, v in props.items()})
        backend = part.backend if part else None
        member = Member(target, workload, threads, tuple(common.items()), backend=backend)
        members += [member] * chosen["containers"]
    controls = spec.io_controls.get(chosen.get("io_controls", ""))
    if controls is not None and controls.middleware is not None:
        members = [
            replace(m, tenant=controls.tenant_of(k)) if k < len(controls.groups) else m
            for k, m in enumerate(members)
        ]
    return tuple(members)


def _pick(levels: dict[str, list[Any]], entry: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The cells of one `cells` entry: each factor's level (a list: several, crossed), or
    the factor's only level when the entry leaves it out."""
    flat = _flatten(entry)
    chosen: dict[str, list[Any]] = {}
    for factor, values in levels.items():
        if factor in flat:
            wanted = flat[factor] if isinstance(flat[factor], list) else [flat[factor]]
            picked = []
            for value in wanted:
                matches = [v for v in values if _as_text(v) == _as_text(value)]
                if not matches:
                    allowed = ", ".join(_as_text(v) for v in values)
                    raise SpecError(
                        f"{where}.{factor}", f"{value!r} is not a level; allowed: {allowed}"
                    )
                picked.append(matches[0])
            chosen[factor] = picked
        elif len(values) == 1:
            chosen[factor] = values
        else:
            allowed = ", ".join(_as_text(v) for v in values)
            raise SpecError(f"{where}.{factor}", f"required (several levels: {allowed})")
    return [dict(zip(chosen, combo, strict=True)) for combo in itertools.product(*chosen.values())]


def _excluded(chosen: dict[str, Any], exclusions: list[dict[str, Any]]) -> bool:
    return any(
        all(_as_text(chosen.get(k)) == _as_text(v) for k, v in rule.items()) for rule in exclusions
    )


def expand(spec: ExperimentSpec, source: str = "spec") -> list[Cell]:
    """The experiment's cells in run order; `InvalidSpecError` for bad cells or exclusions."""
    levels = _factor_levels(spec)
    problems: list[SpecError] = []
    exclusions = [_flatten(e) for e in spec.exclude]
    for i, rule in enumerate(exclusions):
        for factor, value in rule.items():
            if factor in levels and _as_text(value) not in {_as_text(v) for v in levels[factor]}:
                problems.append(
                    SpecError(f"exclude[{i}].{factor}", f"{value!r} is not a level of {factor}")
                )
    if spec.cells is not None:
        combos = []
        for i, entry in enumerate(spec.cells):
            try:
                combos += [c for c in _pick(levels, entry, f"cells[{i}]") if c not in combos]
            except SpecError as exc:
                problems.append(exc)
    else:
        combos = [
            dict(zip(levels, values, strict=True)) for values in itertools.product(*levels.values())
        ]
    if problems:
        raise InvalidSpecError(source, problems)
    chosen = [c for c in combos if not _excluded(c, exclusions)]
    if not chosen:
        raise InvalidSpecError(source, [SpecError("exclude", "every cell is excluded")])
    cells = [
        Cell(0, tuple((k, _shown(v)) for k, v in c.items()), _members(spec, c)) for c in chosen
    ]
    return _in_run_order(cells)


def load_groups(cells: list[Cell]) -> list[list[Cell]]:
    """Cells by load group, groups in first-seen order, cells in their order."""
    groups: dict[tuple[Any, ...], list[Cell]] = {}
    for cell in cells:
        groups.setdefault(cell.load_key(), []).append(cell)
    return list(groups.values())


def _in_run_order(cells: list[Cell]) -> list[Cell]:
    """Cells of a load group together (first-seen order), read-only cells first in each."""
    ordered = []
    for group in load_groups(cells):
        ordered += [c for c in group if c.read_only] + [c for c in group if not c.read_only]
    return [Cell(i, c.levels, c.members) for i, c in enumerate(ordered, start=1)]
