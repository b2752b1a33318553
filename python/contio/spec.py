"""Experiment specs: the YAML a user writes, parsed and validated before anything runs.

A spec names the factor levels of an experiment (targets, workloads, threads), how
often to repeat each cell, the engine properties common to every phase, and where
and how to run (backend, runtime). Unknown keys are rejected; every error names the
field's path (`targets[1]`, `backend.path`) and, where there is a closed set, the
allowed values.
"""

from __future__ import annotations

import typing
from importlib.resources import as_file, files
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PositiveInt,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from contio.errors import InvalidSpecError, SpecError, UsageError
from contio.targets.engine_targets import TARGETS, namespace_owner, target_names
from contio.workloads import WorkloadRef, resolve_workload

DEFAULT_SPEC_NAME = "default.yaml"

PropertyValue = str | int | float | bool


class _SpecModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocalDirBackendSpec(_SpecModel):
    """Keep each cell's data in a fresh directory under `path` on the local file system."""

    type: Literal["local-dir"] = "local-dir"
    path: Path | None = None
    """Base directory for the data directories; None means the system's temp directory."""

    @field_validator("path")
    @classmethod
    def _must_be_directory(cls, value: Path | None) -> Path | None:
        if value is not None and not value.expanduser().is_dir():
            raise PydanticCustomError(
                "not_a_directory", "{path} is not an existing directory", {"path": str(value)}
            )
        return value.expanduser().resolve() if value is not None else None


class ProcessRuntimeSpec(_SpecModel):
    """Run the engine as a child process of contio on this host."""

    type: Literal["process"] = "process"
    stop_grace_seconds: float = Field(10.0, gt=0)
    """How long the engine may take to write its results after a forwarded SIGINT/SIGTERM."""


def _known_target(name: str) -> str:
    if name not in TARGETS:
        raise PydanticCustomError(
            "unknown_target",
            "{name} is not a known target; allowed: {allowed}",
            {"name": repr(name), "allowed": ", ".join(target_names())},
        )
    return name


def _resolve_workload(value: Any, info: ValidationInfo) -> Any:
    if not isinstance(value, str):
        return value
    base_dir = (info.context or {}).get("base_dir", Path.cwd())
    try:
        return resolve_workload(value, Path(base_dir))
    except LookupError as exc:
        raise PydanticCustomError("unknown_workload", "{why}", {"why": str(exc)}) from exc


def _null_is_a_name(value: Any) -> Any:
    # YAML reads a bare `null` as None; in a target list it names the null target.
    return "null" if value is None else value


TargetName = Annotated[str, BeforeValidator(_null_is_a_name), AfterValidator(_known_target)]
Workload = Annotated[WorkloadRef, BeforeValidator(_resolve_workload)]

# Properties that contio sets itself for every phase; a spec setting them would be ignored.
_RESERVED_PROPERTIES = {
    "threadcount": "set the thread levels with `threads` (and `load_threads`)",
    **{
        t.data_dir_property: "the backend sets the data directory"
        for t in TARGETS.values()
        if t.data_dir_property
    },
}


class ExperimentSpec(_SpecModel):
    """A whole experiment: the cells are targets × workloads × threads, each repeated."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=80)
    """Names the results folder (`results/<name>-<UTC time>`)."""
    description: str = ""
    backend: LocalDirBackendSpec = LocalDirBackendSpec()
    runtime: ProcessRuntimeSpec = ProcessRuntimeSpec()
    targets: list[TargetName] = Field(min_length=1)
    workloads: list[Workload] = Field(min_length=1)
    threads: list[PositiveInt] = Field(min_length=1)
    """Client thread levels of the run phase."""
    load_threads: PositiveInt = 1
    """Client threads of the load phase."""
    repetitions: PositiveInt = 3
    """Repetitions of every cell; a confidence interval needs at least 2."""
    properties: dict[str, PropertyValue] = {}
    """Engine properties for every phase (`-p key=value`), after the workload file's."""

    @field_validator("targets", "threads")
    @classmethod
    def _no_duplicates(cls, values: list[Any]) -> list[Any]:
        seen: set[Any] = set()
        for value in values:
            if value in seen:
                raise PydanticCustomError(
                    "duplicate_level", "{value} is listed twice", {"value": repr(value)}
                )
            seen.add(value)
        return values

    @field_validator("workloads")
    @classmethod
    def _no_duplicate_workloads(cls, values: list[WorkloadRef]) -> list[WorkloadRef]:
        names = [w.name for w in values]
        for name in names:
            if names.count(name) > 1:
                raise PydanticCustomError(
                    "duplicate_level", "workload {name} is listed twice", {"name": repr(name)}
                )
        return values

    @field_validator("properties")
    @classmethod
    def _not_reserved(cls, values: dict[str, PropertyValue]) -> dict[str, PropertyValue]:
        for key, value in values.items():
            if key in _RESERVED_PROPERTIES:
                raise PydanticCustomError(
                    "reserved_property",
                    "{key} is set by contio: {why}",
                    {"key": repr(key), "why": _RESERVED_PROPERTIES[key]},
                )
            if "\n" in str(value):
                raise PydanticCustomError(
                    "bad_property", "{key}: values are single lines", {"key": repr(key)}
                )
        return values

    def properties_for(self, target: str) -> dict[str, str]:
        """Engine properties for `target`: common ones plus those in its own namespace.

        Properties in another known target's namespace are left out, since each target
        validates only its own.
        """
        chosen: dict[str, str] = {}
        for key, value in self.properties.items():
            owner = namespace_owner(key)
            if owner is None or owner.name == target:
                chosen[key] = _engine_value(value)
        return chosen


def _engine_value(value: PropertyValue) -> str:
    # YAML booleans become the Java-style spelling YCSB property files use.
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def field_path(loc: tuple[int | str, ...]) -> str:
    """Dotted path of a pydantic error location: ('targets', 1) -> 'targets[1]'."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _model_at(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The spec model that holds the field at `loc`, walking nested models."""
    model: type[BaseModel] = ExperimentSpec
    for part in loc:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return None
        candidates = [field.annotation, *typing.get_args(field.annotation)]
        nested = [c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)]
        if not nested:
            return None
        model = nested[0]
    return model


def _problem(error: Any) -> SpecError:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        model = _model_at(loc[:-1])
        allowed = ", ".join(model.model_fields) if model else "(none)"
        return SpecError(field_path(loc), f"unknown key; allowed keys here: {allowed}")
    if kind == "literal_error":
        expected = error["ctx"]["expected"].replace("'", "")
        return SpecError(field_path(loc), f"{error['input']!r} is not allowed; allowed: {expected}")
    if kind == "missing":
        return SpecError(field_path(loc), "required, but missing")
    return SpecError(field_path(loc), error["msg"])


def validate_spec(data: Any, source: str, base_dir: Path) -> ExperimentSpec:
    """Validate parsed YAML; raise `InvalidSpecError` listing every bad field."""
    if not isinstance(data, dict):
        raise InvalidSpecError(source, [SpecError("", "a spec is a mapping of keys to values")])
    try:
        return ExperimentSpec.model_validate(data, context={"base_dir": base_dir})
    except ValidationError as exc:
        raise InvalidSpecError(source, [_problem(e) for e in exc.errors()]) from None


def parse_spec_text(text: str, source: str, base_dir: Path) -> ExperimentSpec:
    """Parse and validate a spec's YAML text; `base_dir` anchors relative paths."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidSpecError(source, [SpecError("", f"not valid YAML: {exc}")]) from None
    return validate_spec(data, source, base_dir)


def read_spec_file(path: Path) -> tuple[ExperimentSpec, str]:
    """Read and validate a spec file; returns the spec and its text (kept with the results)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read spec {str(path)!r}: {exc.strerror}") from None
    return parse_spec_text(text, str(path), path.resolve().parent), text


def read_default_spec() -> tuple[ExperimentSpec, str]:
    """The embedded default experiment shipped with the package."""
    with as_file(files("contio") / "experiments" / DEFAULT_SPEC_NAME) as path:
        return read_spec_file(Path(path))
