"""Experiment specs: the YAML a user writes, parsed and validated before anything runs.

A spec names factors and their levels (backend, target, workload, threads, containers,
mix, runtime, io_controls, engine properties), the cells (their full factorial, or an
explicit list, less exclusions), the stopping rule, the load policy and the profiles
(`tiny`, `small`, `paper`) that override any of it. The older flat layout (`targets`,
`workloads`, `threads`, `backend`, `repetitions`) is still read: it is the same as the
corresponding factors. Unknown keys are rejected; every error names the field's path
(`factors.target[1]`, `backends.nfs-sync.export_mode`) and, where there is a closed set,
the allowed values. Checks across fields live in `contio.experiment.checks`; reading a
spec file (model first, then those checks) in `contio.experiment.load`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from contio.backends import registry
from contio.errors import InvalidSpecError, SpecError
from contio.experiment.findings import FindingSpec
from contio.experiment.parts import (
    AnalysisSpec,
    CellOrder,
    Factors,
    LoadPolicy,
    MixMember,
    PropertyValue,
    Repetitions,
    StopRule,
    TargetName,
    TargetOptionsSpec,
    Workload,
    no_duplicates,
)
from contio.gluster.faults import NodeStopEvent
from contio.qos.control_spec import IoControlSet
from contio.spec_model import SpecModel
from contio.targets.engine_targets import TARGETS, engine_target_of, namespace_owner
from contio.workload.engine_files import engine_file_problem
from contio.workload.files import WorkloadRef
from contio.yaml_input import (
    Number,
    PositiveInteger,
    number_text,
)

LOCAL_DIR = registry.DEFAULT
"""The plain directory backend: the type of a backend definition that names none."""


RuntimeType = Literal["process", "docker"]
"""The runtimes a cell can run in (`contio.cells.RUNTIMES` maps each to its executor)."""


class RuntimeSpec(SpecModel):
    """Where a cell's containers run, and the runtime's settings.

    `process` (the default): each container is an engine child process on this host.
    `docker`: each container is a Docker container — a database target's server in its
    image with its data on the backend, and the engine in `contio/engine` next to it;
    contio starts a Docker engine when none runs (root) and builds the images first.
    `type` is the runtime of every cell unless the `runtime` factor lists levels.
    """

    type: RuntimeType = "process"
    stop_grace_seconds: Number = Field(10.0, gt=0)
    """How long the engine may take to write its results after a forwarded SIGINT/SIGTERM."""
    ready_timeout_seconds: Number = Field(180.0, gt=0)
    """docker: how long a database container may take to answer its readiness probe."""


# Properties that contio sets itself for every phase; a spec setting them would be ignored.
RESERVED_PROPERTIES = {
    "threadcount": "set the thread levels with `threads` (and `load_threads`)",
    "status.interval": "the live display reads the engine's status every second",
    **{
        t.data_dir_property: "the backend sets the data directory"
        for t in TARGETS.values()
        if t.data_dir_property
    },
}


class ExperimentSpec(SpecModel):
    """A whole experiment. See the module doc and README's spec section."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=80)
    """Names the results folder (`results/<name>-<UTC time>`)."""
    description: str = ""
    backend: dict[str, Any] | None = None
    """One backend (older layout); `backends` names several."""
    backends: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Backend levels by name: `{type: local|striped|gluster|nfs|path|local-dir, …options}`."""
    runtime: RuntimeSpec = RuntimeSpec()
    target_options: dict[str, TargetOptionsSpec] = Field(default_factory=dict)
    """Per database target: `{cache: minimal, memory_limit: 512m, image: mysql:5.7}`; per
    embedded engine (`btree`, `lsm`): `{memory_limit: 128m}` on its engine container."""
    targets: list[TargetName] | None = Field(None, min_length=1)
    workloads: list[Workload] | None = Field(None, min_length=1)
    threads: list[PositiveInteger] | None = Field(None, min_length=1)
    factors: Factors = Factors()
    cells: list[dict[str, Any]] | None = Field(None, min_length=1)
    """Explicit cells instead of the full factorial: each entry maps factors to a level, or
    to a list of levels that are crossed within the entry."""
    exclude: list[dict[str, Any]] = Field(default_factory=list)
    """Cells matching every factor level of an entry are left out."""
    mixes: dict[str, Annotated[list[MixMember], Field(min_length=1)]] = Field(default_factory=dict)
    """Named mixes: the applications (at least one) that share each cell of the mix."""
    io_controls: dict[str, IoControlSet] = Field(default_factory=dict)
    load_threads: PositiveInteger | None = None
    load: LoadPolicy = LoadPolicy()
    repetitions: Repetitions | None = None
    """Repetitions of every cell (older layout of `stop.repetitions`)."""
    stop: StopRule = StopRule()
    warmup_seconds: Number = Field(0.0, ge=0)
    """Seconds at the start of each run phase left out of its ops/s."""
    order: CellOrder = CellOrder()
    """The order cells run in: `{mode: random|fixed, seed: N}` (default random, seed drawn
    at run time and recorded)."""
    drop_caches: bool = False
    """Drop the page cache before every run phase (needs root)."""
    events: list[NodeStopEvent] = Field(default_factory=list)
    """Faults played during every run phase on a gluster backend level (issue 5):
    `{type: stop-node, node: 2, at: 10, restart_at: 30}`, seconds from the run's start."""
    properties: dict[str, PropertyValue] = Field(default_factory=dict)
    """Engine properties for every phase (`-p key=value`), after the workload file's."""
    profiles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Named overrides (`tiny`, `small`, `paper`), merged into the spec by `--profile`."""
    default_profile: str | None = None
    analysis: AnalysisSpec = AnalysisSpec()
    """How backends are compared: `{t_test: paired|welch, baseline: <backend level>}`."""
    findings: list[FindingSpec] = Field(default_factory=list)
    """The paper's findings (or the user's) as testable claims (docs/findings.md)."""

    @field_validator("targets", "threads", "workloads")
    @classmethod
    def _no_duplicates(cls, values: list[Any] | None) -> list[Any] | None:
        return no_duplicates(values) if values is not None else None

    @field_validator("properties")
    @classmethod
    def _not_reserved(cls, values: dict[str, PropertyValue]) -> dict[str, PropertyValue]:
        for key, value in values.items():
            if key in RESERVED_PROPERTIES:
                raise PydanticCustomError(
                    "reserved_property",
                    "{key} is set by contio: {why}",
                    {"key": repr(key), "why": RESERVED_PROPERTIES[key]},
                )
            if "\n" in str(value):
                raise PydanticCustomError(
                    "bad_property", "{key}: values are single lines", {"key": repr(key)}
                )
            written = engine_file_problem(key, engine_value(value))
            if written is not None:
                raise PydanticCustomError("engine_file_property", written)
        return values

    # -- the resolved view the matrix and runner use -----------------------------------
    @property
    def repetition_count(self) -> int:
        """Repetitions of fixed rules (`repetitions` or `stop.repetitions`)."""
        return self.repetitions or self.stop.repetitions

    @property
    def load_thread_count(self) -> int:
        return self.load.threads or self.load_threads or 1

    def backend_definitions(self) -> dict[str, dict[str, Any]]:
        """Backend levels by name; the older single `backend` is named by its type."""
        if self.backends:
            return dict(self.backends)
        single = self.backend if self.backend is not None else {"type": LOCAL_DIR}
        return {str(single.get("type", LOCAL_DIR)): single}

    def target_levels(self) -> list[str]:
        return self.factors.target or self.targets or ["null"]

    def workload_levels(self) -> list[WorkloadRef]:
        return self.factors.workload or self.workloads or []

    def thread_levels(self) -> list[int]:
        return self.factors.threads or self.threads or [1]

    def properties_for(self, target: str) -> dict[str, str]:
        """Engine properties for `target`: common ones plus those in its own namespace.

        Properties in another known target's namespace are left out, since each target
        validates only its own; a database target's are its binding's (`mysql.*` for
        mariadb).
        """
        return _own_properties(self.properties, target)

    def load_properties_for(self, target: str) -> dict[str, str]:
        """The load phase's own properties (`load.properties`) for `target`, namespaced
        as `properties_for` does."""
        return _own_properties(self.load.properties, target)

    def controls_for(self, level: Mapping[str, Any]) -> IoControlSet | None:
        """The block I/O controls a cell's `level` names (None: the `none` level or no
        `io_controls` factor)."""
        return self.io_controls.get(level.get("io_controls", ""))

    def target_options_for(self, target: str) -> TargetOptionsSpec:
        """The options of target `target` (defaults when the spec gives none)."""
        return self.target_options.get(target) or TargetOptionsSpec()


def _own_properties(properties: Mapping[str, PropertyValue], target: str) -> dict[str, str]:
    """Common properties plus those in `target`'s own namespace, as the engine reads them."""
    own = engine_target_of(target)
    return {
        key: engine_value(value)
        for key, value in properties.items()
        if namespace_owner(key) in (None, own)
    }


def engine_value(value: PropertyValue) -> str:
    """A property value as the engine reads it; YAML booleans become `true`/`false`, an
    integral number its integer (`1000.0` → `1000`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return number_text(value)  # 1e3 and 1000.0 reach the engine as 1000
    return str(value)


def apply_profile(data: dict[str, Any], profile: str | None, source: str) -> dict[str, Any]:
    """`data` with the named profile merged in.

    Mappings merge key by key; lists and scalars replace; a mapping with another `type`
    (a backend of another kind) replaces the whole definition.
    """
    profiles = data.get("profiles") or {}
    # `--profile ''` names a profile (none is called that), it does not ask for the default.
    chosen = profile if profile is not None else data.get("default_profile")
    if chosen is None:
        return data
    if not isinstance(chosen, str):
        raise InvalidSpecError(
            source, [SpecError("default_profile", f"must be a profile's name, not {chosen!r}")]
        )
    if not isinstance(profiles, dict) or chosen not in profiles:
        allowed = (
            ", ".join(map(str, profiles)) if isinstance(profiles, dict) and profiles else "(none)"
        )
        field = "--profile" if profile is not None else "default_profile"
        raise InvalidSpecError(
            source, [SpecError(field, f"no profile {chosen!r}; allowed: {allowed}")]
        )
    override = profiles[chosen]
    if not isinstance(override, dict):
        raise InvalidSpecError(
            source, [SpecError(f"profiles.{chosen}", "a profile is a mapping of keys to values")]
        )
    return _merge(data, override)


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = copy.deepcopy(base)
    for key, value in override.items():
        current = merged.get(key)
        if isinstance(value, dict) and isinstance(current, dict) and _same_kind(current, value):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _same_kind(current: dict[str, Any], override: dict[str, Any]) -> bool:
    return "type" not in override or override["type"] == current.get("type")
