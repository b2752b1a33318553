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
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from contio.errors import FileWorkloadError
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


class SpecModel(BaseModel):
    """Base of every spec model: strict keys, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


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
    properties: dict[str, PropertyValue] = {}
    """Engine properties of the load phase only, over the spec's `properties` (YCSB's
    `batchsize` for MongoDB-protocol servers, `mongodb.batchsize: 100`, fills a server
    that commits every insert on its own much faster, and the run phases keep their
    one-operation-per-request semantics)."""


class CellOrder(SpecModel):
    """The order cells run in (`contio.experiment.matrix.execution_order`).

    `interleaved`: the run goes in rounds, each giving one repetition to every cell that
    still wants one, in an order drawn from `seed` per pair of rounds and run backwards
    in the pair's second round (`contio.experiment.matrix.interleaved_rounds`), so the
    cells of one load group and each cell's repetitions are spread over the whole run.
    `random`: the load groups (cells that share one load: same backend, runtime,
    containers and data set) run in an order shuffled from `seed`, and so do the cells
    inside each group (read-only ones still first, so one load serves them); each cell
    runs all its repetitions before the next starts. `counterbalanced`: two passes, the
    second the first backwards (A B C | C B A), each cell running half its repetitions
    in each (`contio.experiment.matrix.counterbalanced_passes`): a steady drift adds the
    same to every cell, for one more load per group where interleaving loads every
    round. `auto` (the default): interleaved when `contio plan` prices it within
    `ORDER_COST_LIMIT` (25 %) of random for the spec, else counterbalanced when that is
    within it, else random (`contio.run.plan.resolved_order`). `fixed`: the cells' own order
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


_PERCENT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*$")


def _bandwidth(value: Any) -> int | str:
    """bytes/s (a positive integer), or a percent of the device's bandwidth (`25%`), kept
    as `25%`."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, float) and value.is_integer() and value > 0:
        return int(value)  # 1e6 from YAML
    found = _PERCENT.match(value) if isinstance(value, str) else None
    if found is None:
        raise PydanticCustomError(
            "bad_bandwidth",
            "{value} is neither bytes/s (a positive integer) nor a percent of the device's "
            "bandwidth ('25%')",
            {"value": repr(value)},
        )
    percent = float(found.group(1))
    if not 0 < percent <= 100:
        raise PydanticCustomError(
            "bad_percent", "a percent of the device's bandwidth is in (0, 100], not {value}",
            {"value": value},
        )  # fmt: skip
    return f"{percent:g}%"


Bandwidth = Annotated[int | str, PlainValidator(_bandwidth)]
"""bytes/s, or `N%`: N % of the bandwidth measured on the device when the run starts.
One validator for both forms, so an error names the field once with both allowed."""


def percent_of(value: int | str | None) -> float | None:
    """The percent of a `Bandwidth` given as one (`25%` → 25.0), else None."""
    if isinstance(value, str):
        return float(value.rstrip("%"))
    return None


class IoGroupControls(SpecModel):
    """Block I/O limits of one container (or local process group). Sizes in bytes/s;
    `read_bps` and `write_bps` also as a percent of the device's bandwidth (`25%`),
    resolved against a short direct-I/O calibration on the device when the run starts
    (`contio.qos.calibration`).

    Under a level's `middleware`, the container is a tenant of the Gluster cluster
    instead, with a `priority` and optionally a `reservation` and `limit` per storage
    node (docs/middleware.md)."""

    read_bps: Bandwidth | None = None
    write_bps: Bandwidth | None = None
    read_iops: PositiveInteger | None = None
    write_iops: PositiveInteger | None = None
    weight: Integer | None = Field(None, ge=1, le=1000)
    priority: Integer | None = Field(None, ge=1, le=100)
    reservation: Bandwidth | None = None
    limit: Bandwidth | None = None
    tenant: str | None = Field(None, pattern=r"^[a-z][a-z0-9]{0,15}$")
    """The middleware tenant (default `t<k>` for the k-th group): groups of one tenant
    share its volume and its share (paper 004's two background readers)."""

    @property
    def empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())

    @property
    def local_fields(self) -> list[str]:
        """The cgroup controls it sets (applied on this host, not by the middleware)."""
        return [k for k in LOCAL_CONTROLS if getattr(self, k) is not None]

    @property
    def tenant_fields(self) -> list[str]:
        """The middleware settings it sets."""
        return [k for k in TENANT_SETTINGS if getattr(self, k) is not None]

    @property
    def relative(self) -> bool:
        """Whether a bandwidth is a percent of the device's (needs a calibration)."""
        return percent_of(self.read_bps) is not None or percent_of(self.write_bps) is not None

    def resolved(self, read_bps: float, write_bps: float) -> IoGroupControls:
        """These controls with each percent turned into bytes/s of the measured bandwidth
        (`read_bps`, `write_bps`: the device's, bytes/s); at least 1 byte/s."""
        update: dict[str, int] = {}
        for name, measured in (("read_bps", read_bps), ("write_bps", write_bps)):
            percent = percent_of(getattr(self, name))
            if percent is not None:
                update[name] = max(1, round(measured * percent / 100))
        return self.model_copy(update=update)


LOCAL_CONTROLS = ("read_bps", "write_bps", "read_iops", "write_iops", "weight")
TENANT_SETTINGS = ("priority", "reservation", "limit", "tenant")


class MiddlewareControls(SpecModel):
    """Paper 004's middleware on the cluster of a Gluster backend whose containers each
    have their own volume (`volume_per_container: true`): each group is a tenant."""

    policy: Literal["static", "work-conserving"] = "work-conserving"
    capacity: PositiveInteger | None = None
    """Each storage node's bytes/s; default: measured on each node's brick disk at `up`."""


class IoControlSet(SpecModel):
    """A level of the `io_controls` factor: one group (a cgroup, the VNode of paper 004,
    docs/papers.md) per container, in container order; a group without limits still
    isolates its container in a cgroup of its own. Containers past the list's end are not
    grouped. With `middleware`, the groups are tenants of the Gluster cluster, their
    shares enforced on every storage node by `contio qos` (docs/middleware.md)."""

    groups: list[IoGroupControls] = []
    device: str | None = None
    """The block device to control (`/dev/loop3`, `8:16`); default: the backend's."""
    middleware: MiddlewareControls | None = None

    @model_validator(mode="after")
    def _groups_fit_the_mechanism(self) -> IoControlSet:
        for k, group in enumerate(self.groups):
            if self.middleware is not None:
                if group.local_fields:
                    raise ValueError(
                        f"groups[{k}]: {', '.join(group.local_fields)} are cgroup controls on "
                        "this host; a middleware tenant takes priority, reservation and limit"
                    )
                if group.priority is None:
                    raise ValueError(f"groups[{k}]: a middleware tenant needs a priority (1-100)")
                _percent_free(k, group)
            elif group.tenant_fields:
                raise ValueError(
                    f"groups[{k}]: {', '.join(group.tenant_fields)} are settings of a middleware "
                    "tenant; add `middleware: {policy: static}` (or work-conserving) to the level"
                )
        if self.middleware is not None and self.device is not None:
            raise ValueError("device: the middleware controls each storage node's brick disk")
        if self.middleware is not None:
            self._tenants_agree()
        return self

    def _tenants_agree(self) -> None:
        first: dict[str, tuple[int, IoGroupControls]] = {}
        for k, group in enumerate(self.groups):
            name = self.tenant_of(k)
            if name not in first:
                first[name] = (k, group)
                continue
            j, other = first[name]
            for setting in ("priority", "reservation", "limit"):
                if getattr(group, setting) != getattr(other, setting):
                    raise ValueError(
                        f"groups[{k}].{setting}: tenant {name!r} has {setting} "
                        f"{getattr(other, setting)!r} in groups[{j}]; a tenant has one"
                    )

    def tenant_of(self, k: int) -> str:
        """The middleware tenant of the `k`-th group (0-based)."""
        return self.groups[k].tenant or f"t{k + 1}"

    def tenants(self) -> dict[str, IoGroupControls]:
        """Each middleware tenant of the level and its settings (from its first group)."""
        found: dict[str, IoGroupControls] = {}
        for k, group in enumerate(self.groups):
            found.setdefault(self.tenant_of(k), group)
        return found

    @property
    def empty(self) -> bool:
        """No groups at all: nothing to apply."""
        return not self.groups


def _percent_free(k: int, group: IoGroupControls) -> None:
    for name in ("reservation", "limit"):
        if percent_of(getattr(group, name)) is not None:
            raise ValueError(
                f"groups[{k}].{name}: give bytes/s (a percent of a storage node is not "
                "supported yet)"
            )


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
    properties: dict[str, list[PropertyValue]] = {}
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
