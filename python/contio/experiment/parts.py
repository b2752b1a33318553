"""The parts of an experiment spec below the top level: stopping rule, load policy, mixes,
block I/O control sets and the factors themselves.

Each is a strict pydantic model (unknown keys are refused) so that every error names its
field path; `contio.experiment.spec` assembles them into `ExperimentSpec`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from contio.errors import FileWorkloadError
from contio.spec_model import SpecModel
from contio.targets.engine_targets import DATABASE_BINDINGS, TARGETS, target_names
from contio.workload.cstress_kind import cstress_workload
from contio.workload.file_entries import file_workload
from contio.workload.files import WorkloadRef, resolve_workload
from contio.workload.kinds import KINDS, kind_names
from contio.workload.tpcc_kind import tpcc_workload
from contio.yaml_input import Integer, Number, PositiveInteger, Scalar

PropertyValue = Scalar

NO_CONTROLS = "none"
"""The `io_controls` level that needs no definition: nothing is controlled."""

FACTOR_NAMES = (
    "backend",
    "target",
    "workload",
    "threads",
    "containers",
    "mix",
    "runtime",
    "io_controls",
    "properties",
)
"""Every factor a cell has a level of (the keys `cells` and `exclude` entries may use)."""


def _known_target(name: str) -> str:
    if name not in TARGETS and name not in DATABASE_BINDINGS:
        raise PydanticCustomError(
            "unknown_target",
            "{name} is not a known target; allowed: {allowed}",
            {"name": repr(name), "allowed": ", ".join(target_names())},
        )
    return name


def _resolve_workload(value: Any, info: ValidationInfo) -> Any:
    base_dir = Path((info.context or {}).get("base_dir", Path.cwd()))
    if isinstance(value, dict):
        kind = value.get("kind", "ycsb")
        if kind not in KINDS:
            raise PydanticCustomError(
                "unknown_kind",
                "workload kind {kind} is not available; allowed: {allowed}",
                {"kind": repr(kind), "allowed": ", ".join(kind_names())},
            )
        if kind == "tpcc":
            try:
                return tpcc_workload(value)
            except FileWorkloadError as exc:
                raise PydanticCustomError("bad_tpcc_workload", "{why}", {"why": str(exc)}) from exc
        if kind == "cassandra-stress":
            try:
                return cstress_workload(value)
            except FileWorkloadError as exc:
                raise PydanticCustomError(
                    "bad_cstress_workload", "{why}", {"why": str(exc)}
                ) from exc
        if kind != "ycsb":
            try:
                return file_workload(value, base_dir)
            except FileWorkloadError as exc:
                raise PydanticCustomError("bad_file_workload", "{why}", {"why": str(exc)}) from exc
        extra = sorted(set(value) - {"kind", "file"})
        if extra:
            raise PydanticCustomError(
                "unknown_key", "unknown key {key}; allowed keys here: kind, file", {"key": extra[0]}
            )
        value = value.get("file")
    if isinstance(value, WorkloadRef):
        return value
    if not isinstance(value, str):
        raise PydanticCustomError(
            "bad_workload",
            "{value} is not a workload: give a packaged workload's name (workloada), a path "
            "to a workload file, or a mapping with a `kind` (fio, sysbench, tpcc, "
            "cassandra-stress)",
            {"value": repr(value)},
        )
    try:
        return resolve_workload(value, base_dir)
    except LookupError as exc:
        raise PydanticCustomError("unknown_workload", "{why}", {"why": str(exc)}) from exc


def _null_is_a_name(value: Any) -> Any:
    # YAML reads a bare `null` as None; in a target list it names the null target.
    return "null" if value is None else value


TargetName = Annotated[str, BeforeValidator(_null_is_a_name), AfterValidator(_known_target)]
Workload = Annotated[WorkloadRef, BeforeValidator(_resolve_workload)]


MAX_REPETITIONS = 1000
"""Most repetitions of one cell (`repetitions`, `stop.*repetitions`). Each repetition is
a whole run phase (and a load, when the workload writes); past a few hundred the
confidence interval narrows only as 1/√n while the machine drifts, and a typo such as
`10^12` would be planned as years of running."""


def _at_most_max_repetitions(value: int) -> int:
    if value > MAX_REPETITIONS:
        raise PydanticCustomError(
            "too_many_repetitions",
            "{value} repetitions of a cell is more than the {most} contio runs: each one "
            "is a whole run phase, and past a few hundred the confidence interval narrows "
            "only as 1/sqrt(n) while the machine drifts",
            {"value": value, "most": MAX_REPETITIONS},
        )
    return value


Repetitions = Annotated[PositiveInteger, AfterValidator(_at_most_max_repetitions)]


def no_duplicates(values: list[Any], describe: str = "{value}") -> list[Any]:
    """Refuse a level listed twice (it would make two identical cells)."""
    seen: set[Any] = set()
    for value in values:
        key = value.name if isinstance(value, WorkloadRef) else value
        if key in seen:
            raise PydanticCustomError(
                "duplicate_level", "{value} is listed twice", {"value": repr(key)}
            )
        seen.add(key)
    return values


MAX_PHASE_SECONDS = 7 * 24 * 3600
"""The longest run phase a stop rule may ask for."""


class StopRule(SpecModel):
    """When a cell has measured enough.

    - `workload`: as the workload file and `properties` say (operationcount,
      maxexecutiontime), `repetitions` times — the behaviour of specs without `stop`.
    - `fixed-ops`: `operations` per repetition, `repetitions` times.
    - `fixed-time`: `seconds` per repetition, `repetitions` times.
    - `adaptive`: repetitions of `operations` or `seconds` each until the `confidence`
      interval's half-width of ops/s is within `ci_target` of the mean, at least
      `min_repetitions` and at most `max_repetitions` times.
    """

    rule: Literal["workload", "fixed-ops", "fixed-time", "adaptive"] = "workload"
    operations: PositiveInteger | None = None
    seconds: Number | None = Field(None, gt=0)
    repetitions: Repetitions = 3
    ci_target: Number = Field(0.02, gt=0, lt=1)
    confidence: Number = Field(0.95, gt=0, lt=1)
    min_repetitions: Repetitions = Field(3, ge=2)
    max_repetitions: Repetitions = 30

    @field_validator("seconds")
    @classmethod
    def _whole_seconds(cls, value: float | None) -> float | None:
        # The engine's maxexecutiontime is whole seconds; `1e6:g` reached it as "1e+06".
        if value is not None and not value.is_integer():
            raise PydanticCustomError(
                "whole_seconds", "{value} is not a whole number of seconds", {"value": value}
            )
        if value is not None and value > MAX_PHASE_SECONDS:
            raise PydanticCustomError(
                "too_long_phase",
                "{value} seconds is more than {most} (a week): a run phase that long is a "
                "typo here",
                {"value": f"{value:g}", "most": MAX_PHASE_SECONDS},
            )
        return value

    @model_validator(mode="after")
    def _sizes(self) -> StopRule:
        if self.rule == "fixed-ops" and self.operations is None:
            raise ValueError("rule 'fixed-ops' needs 'operations'")
        if self.rule == "fixed-time" and self.seconds is None:
            raise ValueError("rule 'fixed-time' needs 'seconds'")
        if self.rule == "adaptive":
            if (self.operations is None) == (self.seconds is None):
                raise ValueError("rule 'adaptive' needs exactly one of 'operations' or 'seconds'")
            if self.max_repetitions < self.min_repetitions:
                raise ValueError("'max_repetitions' is below 'min_repetitions'")
        return self

    @property
    def adaptive(self) -> bool:
        return self.rule == "adaptive"

    def engine_properties(self) -> dict[str, str]:
        """The engine properties this rule sets for every run phase.

        The rule decides which size counts: a profile that turns `fixed-ops` into
        `fixed-time` merges `seconds` in beside the `operations` it leaves behind.
        """
        if self.rule == "workload":
            return {}
        if self.rule == "fixed-time" or (self.rule == "adaptive" and self.seconds is not None):
            return {"operationcount": "0", "maxexecutiontime": str(int(self.seconds or 0))}
        return {"operationcount": str(self.operations), "maxexecutiontime": "0"}


class LoadPolicy(SpecModel):
    """How the load phase is shared, as in YCSB: load once, run many.

    `auto` reuses one load per (backend, target, data set) for read-only workloads
    and reloads before every repetition of a workload that writes; `always` reuses it
    for every workload (the data drifts as writes accumulate); `never` reloads before
    every repetition of every cell.
    """

    reuse: Literal["auto", "always", "never"] = "auto"
    threads: PositiveInteger | None = None
    """Client threads of the load phase (top-level `load_threads` is the older spelling)."""
    properties: dict[str, PropertyValue] = Field(default_factory=dict)
    """Engine properties of the load phase only, over the spec's `properties` (YCSB's
    `batchsize` for MongoDB-protocol servers, `mongodb.batchsize: 100`, fills a server
    that commits every insert on its own much faster, and the run phases keep their
    one-operation-per-request semantics)."""


class CellOrder(SpecModel):
    """The order cells run in (`contio.experiment.cell_order.execution_order`).

    `interleaved`: the run goes in rounds, each giving one repetition to every cell that
    still wants one, in an order drawn from `seed` per pair of rounds and run backwards
    in the pair's second round (`contio.experiment.cell_order.interleaved_rounds`), so the
    cells of one load group and each cell's repetitions are spread over the whole run.
    `random`: the load groups (cells that share one load: same backend, runtime,
    containers and data set) run in an order shuffled from `seed`, and so do the cells
    inside each group (read-only ones still first, so one load serves them); each cell
    runs all its repetitions before the next starts. `counterbalanced`: two passes, the
    second the first backwards (A B C | C B A), each cell running half its repetitions
    in each (`contio.experiment.cell_order.counterbalanced_passes`): a steady drift adds the
    same to every cell, for one more load per group where interleaving loads every
    round. `auto` (the default): interleaved when `contio plan` prices it within
    `ORDER_COST_LIMIT` (25 %) of random for the spec, else counterbalanced when that is
    within it, else random (`contio.run.pricing.resolved_order`). `fixed`: the cells' own order
    (their indexes), as before issue 14. Without a `seed` one is drawn when the run
    starts; the mode and seed the run used are recorded in the results (`index.sqlite`
    meta `order`, `spec.json`) and `--resume` goes on in the same order.
    """

    mode: Literal["auto", "interleaved", "counterbalanced", "random", "fixed"] = "auto"
    seed: Integer | None = Field(None, ge=0, lt=2**63)


class MixMember(SpecModel):
    """One application of a heterogeneous mix; `containers` copies of it run per cell."""

    workload: Workload
    target: TargetName | None = None
    """Default: the cell's target."""
    threads: PositiveInteger | None = None
    """Default: the cell's threads."""
    backend: str | None = None
    """A backend definition (a key of `backends`) for this member's data; default: the
    cell's backend level. Members of one cell on different backends share the host but
    not the storage: how `contio advise --validate` runs a placement."""


_MEMORY = re.compile(r"^([0-9]+)([bkmg]?)$", re.IGNORECASE)
_UNIT = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
MIN_MEMORY_BYTES = 6 << 20
"""Docker refuses a container memory limit below 6 MiB."""


def memory_bytes(value: str) -> int:
    """Bytes of a Docker memory size (`512m`, `2g`, `1048576`)."""
    found = _MEMORY.match(value.strip())
    if found is None:
        raise ValueError(f"{value!r} is not a size; use a number with b, k, m or g (512m, 2g)")
    return int(found.group(1)) * _UNIT[found.group(2).lower()]


class TargetOptionsSpec(SpecModel):
    """How one database target runs (`target_options.<target>`): `contio.targets.base.TargetOptions`."""

    cache: Literal["default", "minimal"] = "default"
    """`minimal`: the database's caches as small as it allows, so operations reach storage."""
    memory_limit: str | None = None
    """Container memory limit (`512m`, `2g`); swap off, so the page cache is bounded too."""
    image: str | None = Field(None, min_length=1, pattern=r"^\S+$")
    """A registry image (`mysql:5.7`, `cassandra:3.11`) instead of contio's offline one;
    pulled when not present."""

    @field_validator("memory_limit")
    @classmethod
    def _memory(cls, value: str | None) -> str | None:
        if value is not None and memory_bytes(value) < MIN_MEMORY_BYTES:
            raise ValueError(f"{value!r} is below Docker's minimum of 6m")
        return value


MAX_CONTAINERS = 100_000
"""Most containers a `containers` level may name at all; what this host can start is
usually far fewer, and said by `contio.experiment.host_limits`."""


class Factors(SpecModel):
    """The factors of an experiment and their levels; cells are their full factorial
    (or the spec's explicit `cells`). A factor left out has one default level."""

    backend: list[str] | None = Field(None, min_length=1)
    target: list[TargetName] | None = Field(None, min_length=1)
    workload: list[Workload] | None = Field(None, min_length=1)
    threads: list[PositiveInteger] | None = Field(None, min_length=1)
    containers: list[Annotated[PositiveInteger, Field(le=MAX_CONTAINERS)]] | None = Field(
        None, min_length=1
    )
    mix: list[str] | None = Field(None, min_length=1)
    runtime: list[str] | None = Field(None, min_length=1)
    io_controls: list[str] | None = Field(None, min_length=1)
    properties: dict[str, list[PropertyValue]] = Field(default_factory=dict)
    """Engine properties as factors: `{fieldlength: [100, 16384]}`."""

    @field_validator(
        "backend", "target", "workload", "threads", "containers", "mix", "runtime", "io_controls"
    )
    @classmethod
    def _unique(cls, values: list[Any] | None) -> list[Any] | None:
        return no_duplicates(values) if values is not None else None

    @field_validator("properties")
    @classmethod
    def _levels(cls, values: dict[str, list[PropertyValue]]) -> dict[str, list[PropertyValue]]:
        for key, levels in values.items():
            if not levels:
                raise PydanticCustomError("empty", "{key} has no levels", {"key": repr(key)})
            no_duplicates(levels)
        return values


class AnalysisSpec(SpecModel):
    """How the report and `contio results` compare the backend levels (paper 002's Table 1).

    `t_test: paired` matches repetition i of a backend with repetition i of the
    baseline (paper 002 ran its storage options in matched runs); `welch` treats them as
    independent samples. `baseline` is the backend level every other is compared
    with (relative differences, t-tests, conclusions); default: the first backend.
    """

    t_test: Literal["welch", "paired"] = "welch"
    baseline: str | None = None
