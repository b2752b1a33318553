"""Checks across the fields of a spec: names that must exist elsewhere in it, levels that
cannot combine, backend options (through the backend registry); and, for `contio run`
only, what the machine must allow (root for drop_caches).

Each problem is a `SpecError` naming the field path, collected so a user sees them all.
Once the fields are consistent, `contio.experiment.load` checks the cells themselves
(`contio.experiment.cell_checks`): runtimes against targets, backends and block I/O groups.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, get_args

from contio.backends import registry
from contio.errors import BackendOptionError, SpecError
from contio.experiment.findings import defined_levels, finding_problems
from contio.experiment.matrix import DATASET_PROPERTIES
from contio.experiment.parts import FACTOR_NAMES, NO_CONTROLS, PropertyValue, memory_bytes
from contio.experiment.spec import (
    LOCAL_DIR,
    RESERVED_PROPERTIES,
    ExperimentSpec,
    RuntimeType,
    engine_value,
)
from contio.targets.engine_targets import DATABASE_BINDINGS, EMBEDDED_ENGINES
from contio.workload.engine_files import engine_file_problem
from contio.workload.fio_options import fio_option_problem, sysbench_option_problem

_STOP_PROPERTIES = ("operationcount", "maxexecutiontime")


def backend_types() -> list[str]:
    """Backend types a spec may name: the registry's (the plain `local-dir` first)."""
    return registry.names()


def backend_options(kind: str, options: dict[str, Any]) -> dict[str, Any]:
    """A backend's options checked and with their defaults (`contio backend check`), for
    every type a spec accepts; `BackendOptionError` names the bad option."""
    return registry.validate_options(kind, options).model_dump(mode="json")


def backend_option_defaults(kind: str) -> dict[str, str]:
    """Each option of backend `kind` with its default (`(required)` when it has none)."""
    model = registry.backend_class(kind).options_model
    return {
        name: "(required)"
        if info.is_required()
        else repr(info.get_default(call_default_factory=True))
        for name, info in model.model_fields.items()
    }


def cross_check(spec: ExperimentSpec, base_dir: Path) -> list[SpecError]:
    """Every problem across fields, in spec order (the cells are checked after these pass)."""
    problems: list[SpecError] = []
    problems += _check_backends(spec)
    problems += _check_shorthands(spec)
    problems += _check_levels(spec)
    problems += _check_stop(spec)
    problems += _check_warmup(spec)
    problems += _check_cell_lists(spec)
    problems += _check_events(spec)
    problems += _check_analysis(spec)
    problems += _check_target_options(spec)
    problems += _check_load_properties(spec)
    problems += _check_property_options(spec)
    problems += _check_findings(spec)
    return problems


def run_problems(spec: ExperimentSpec) -> list[SpecError]:
    """What this machine must allow for the spec to run (checked by `contio run`, not by
    `contio plan`, which may be run by anyone): root for `drop_caches`."""
    if spec.drop_caches and os.geteuid() != 0:
        return [
            SpecError(
                "drop_caches",
                f"needs root to write /proc/sys/vm/drop_caches (running as uid {os.geteuid()}); "
                "run as root or set drop_caches: false",
            )
        ]
    return []


def _check_analysis(spec: ExperimentSpec) -> list[SpecError]:
    """The baseline of the comparisons must be one of the spec's backend levels."""
    baseline = spec.analysis.baseline
    levels = spec.factors.backend or list(spec.backend_definitions())
    if baseline is None or baseline in levels:
        return []
    return [
        SpecError("analysis.baseline", f"{baseline!r} is not a backend level; allowed: "
                  + ", ".join(levels))
    ]  # fmt: skip


def _check_findings(spec: ExperimentSpec) -> list[SpecError]:
    """Claims must select cells by factors and levels the spec defines (docs/findings.md)."""
    defined = defined_levels(
        list(spec.backend_definitions()), list(spec.mixes), list(spec.io_controls)
    )
    return finding_problems(spec.findings, defined)


def _check_target_options(spec: ExperimentSpec) -> list[SpecError]:
    """`target_options` keys must be database targets, or embedded engines that keep
    files (whose client container can be given a memory limit, nothing else)."""
    allowed = [*DATABASE_BINDINGS, *EMBEDDED_ENGINES]
    problems = []
    for name, options in spec.target_options.items():
        if name not in allowed:
            problems.append(
                SpecError(
                    f"target_options.{name}",
                    f"{name!r} has no server or files to configure; allowed: {', '.join(allowed)}",
                )
            )
        elif name in EMBEDDED_ENGINES:
            problems += [
                SpecError(
                    f"target_options.{name}.{option}",
                    f"an embedded engine runs inside the engine's own container: only "
                    f"memory_limit applies to {name!r} (its cache is `{name}.cache_bytes`)",
                )
                for option in sorted(options.model_fields_set - {"memory_limit"})
            ]
        least = SERVER_MEMORY_MINIMUM.get(name)
        limit = options.memory_limit
        if least is not None and limit is not None and memory_bytes(limit) < least:
            problems.append(
                SpecError(
                    f"target_options.{name}.memory_limit",
                    f"{limit!r} is below the {least >> 20}m {name} needs to start (its "
                    "first start, installing the system tables, is killed for memory)",
                )
            )
    return problems


SERVER_MEMORY_MINIMUM = {"mariadb": 128 << 20}
"""Memory limits below which a database server does not start at all (measured with
contio's images: MariaDB's system-table installation is OOM-killed at 64m, starts at
128m)."""


def _check_load_properties(spec: ExperimentSpec) -> list[SpecError]:
    """`load.properties` may change how the data is written, not what it is: the run
    phases read the data set that `properties` defines."""
    return [
        SpecError(
            f"load.properties.{key}",
            "defines the data set, which the run phases must see too: set it in "
            "`properties` instead",
        )
        for key in spec.load.properties
        if key in DATASET_PROPERTIES
    ]


def _property_places(spec: ExperimentSpec) -> list[tuple[str, str, PropertyValue]]:
    """(field path, key, value) of every engine property the spec sets: `properties`,
    each level of `factors.properties`, `load.properties`."""
    found = [(f"properties.{k}", k, v) for k, v in spec.properties.items()]
    for key, levels in spec.factors.properties.items():
        found += [(f"factors.properties.{key}[{i}]", key, v) for i, v in enumerate(levels)]
    found += [(f"load.properties.{k}", k, v) for k, v in spec.load.properties.items()]
    return found


def _check_property_options(spec: ExperimentSpec) -> list[SpecError]:
    """Properties keep the engine's files in the backend's data directory: contio sets the
    targets' data directories, fio's `directory` and sysbench's `file-dir`; a fio
    `filename` is a name in it (`contio.workload.fio_options`)."""
    problems = []
    for path, key, value in _property_places(spec):
        text = engine_value(value)
        if key in RESERVED_PROPERTIES and not path.startswith("properties."):
            problem: str | None = f"set by contio: {RESERVED_PROPERTIES[key]}"
        elif key.startswith("fio."):
            problem = fio_option_problem(key.removeprefix("fio."), text)
        elif key.startswith("sysbench."):
            problem = sysbench_option_problem(key.removeprefix("sysbench."), text)
        elif "\n" in text or "\r" in text:
            problem = "a value is one line"
        elif not path.startswith("properties."):  # `properties` is checked by the model
            problem = engine_file_problem(key, text)
        else:
            problem = None
        if problem is not None:
            problems.append(SpecError(path, problem))
    return problems


def _check_events(spec: ExperimentSpec) -> list[SpecError]:
    """Node-stop events need a gluster level to play on; run phases must outlast them."""
    if not spec.events:
        return []
    gluster = [n for n, d in spec.backend_definitions().items() if d.get("type") == "gluster"]
    if not gluster:
        types = sorted({str(d.get("type", LOCAL_DIR)) for d in spec.backend_definitions().values()})
        return [
            SpecError(
                "events",
                "stop-node events need a backend level of type 'gluster'; this spec has: "
                + ", ".join(types),
            )
        ]
    seconds = spec.stop.seconds
    if seconds is None:
        return []  # phases limited by operations: their length is not known in advance
    # An event not begun when the phase ends is skipped: the fault would silently not happen.
    return [
        SpecError(
            f"events[{i}].at",
            f"{event.at:g} s is not before the run phase ends (stop.seconds: {seconds:g}); "
            "the node would never be stopped",
        )
        for i, event in enumerate(spec.events)
        if event.at >= seconds
    ]


def _backend_prefix(spec: ExperimentSpec, name: str) -> str:
    return "backend" if not spec.backends else f"backends.{name}"


def _check_backends(spec: ExperimentSpec) -> list[SpecError]:
    problems = []
    for name, definition in spec.backend_definitions().items():
        prefix = _backend_prefix(spec, name)
        kind = definition.get("type", LOCAL_DIR)
        if kind not in backend_types():
            problems.append(
                SpecError(
                    f"{prefix}.type",
                    f"{kind!r} is not allowed; allowed: {', '.join(backend_types())}",
                )
            )
            continue
        options = {k: v for k, v in definition.items() if k != "type"}
        try:
            registry.validate_options(kind, options)
        except BackendOptionError as exc:
            option = f".{exc.option}" if exc.option else ""
            message = str(exc).split(": ", 1)[-1]
            problems.append(SpecError(f"{prefix}{option}", message))
            continue
    return problems


def docker_volume_option(definition: dict[str, Any]) -> tuple[str, str] | None:
    """(option, allowed host-directory values) when a backend level hands out Docker
    volumes instead of host directories, else None."""
    kind = definition.get("type", LOCAL_DIR)
    cls = registry.backend_class(kind)
    if not cls.capabilities.docker_volumes:
        return None
    options = registry.validate_options(kind, {k: v for k, v in definition.items() if k != "type"})
    return cls.volume_option(options)  # with the defaults: nfs mounts through Docker volumes


def _check_shorthands(spec: ExperimentSpec) -> list[SpecError]:
    problems = []
    pairs = (("targets", "target"), ("workloads", "workload"), ("threads", "threads"))
    for short, factor in pairs:
        if getattr(spec, short) is not None and getattr(spec.factors, factor) is not None:
            problems.append(SpecError(short, f"give `{short}` or `factors.{factor}`, not both"))
    if spec.backend is not None and spec.backends:
        problems.append(SpecError("backend", "give `backend` or `backends`, not both"))
    if spec.load_threads is not None and spec.load.threads is not None:
        problems.append(SpecError("load_threads", "give `load_threads` or `load.threads`"))
    return problems


def _check_levels(spec: ExperimentSpec) -> list[SpecError]:
    problems = []
    factors = spec.factors
    names = {
        "backend": list(spec.backend_definitions()),
        "mix": list(spec.mixes),
        "io_controls": [NO_CONTROLS, *spec.io_controls],
        "runtime": list(get_args(RuntimeType)),
    }
    for factor, allowed in names.items():
        for i, level in enumerate(getattr(factors, factor) or []):
            if level not in allowed:
                problems.append(
                    SpecError(
                        f"factors.{factor}[{i}]",
                        f"{level!r} is not defined; allowed: {', '.join(allowed) or '(none)'}",
                    )
                )
    for mix, members in spec.mixes.items():
        for i, member in enumerate(members):
            if member.backend is not None and member.backend not in names["backend"]:
                problems.append(
                    SpecError(
                        f"mixes.{mix}[{i}].backend",
                        f"{member.backend!r} is not defined; allowed: {', '.join(names['backend'])}",
                    )
                )
    if factors.mix is not None and (factors.workload is not None or spec.workloads is not None):
        problems.append(
            SpecError("factors.mix", "cannot combine with a workload factor: a mix names its own")
        )
    if factors.mix is None and not spec.workload_levels() and spec.cells is None:
        problems.append(SpecError("factors.workload", "required (or a `mix`), but missing"))
    for key in factors.properties:
        if key in spec.properties:
            problems.append(
                SpecError(f"factors.properties.{key}", "also set in `properties`; keep one")
            )
    return problems


def _check_stop(spec: ExperimentSpec) -> list[SpecError]:
    problems = []
    if spec.stop.rule != "workload":
        for key in _STOP_PROPERTIES:
            if key in spec.properties or key in spec.factors.properties:
                problems.append(
                    SpecError(
                        f"properties.{key}",
                        f"set by stop rule {spec.stop.rule!r}; remove it or use rule 'workload'",
                    )
                )
    if spec.stop.adaptive and spec.repetitions is not None:
        problems.append(
            SpecError("repetitions", "the adaptive rule uses stop.min_/max_repetitions instead")
        )
    return problems


def _check_warmup(spec: ExperimentSpec) -> list[SpecError]:
    """The warm-up must leave a second of the run phase to measure, where the phase's
    length is known: it is left out only of a phase that lasts at least its whole
    seconds + 1 (`contio.results.steady_state`), else the phase counts whole and the
    warm-up would silently not apply."""
    skip = int(spec.warmup_seconds)
    if skip <= 0:
        return []
    lengths: list[tuple[str, float]] = []
    if spec.stop.seconds is not None and spec.stop.rule in ("fixed-time", "adaptive"):
        lengths.append(("stop.seconds", spec.stop.seconds))
    elif spec.stop.rule == "workload":
        for path, key, value in _property_places(spec):
            if key == "maxexecutiontime" and not path.startswith("load."):
                try:
                    lengths.append((path, float(engine_value(value))))
                except ValueError:
                    continue  # the engine refuses it
    return [
        SpecError(
            "warmup_seconds",
            f"{spec.warmup_seconds:g} s leaves no second to measure in run phases of at most "
            f"{seconds:g} s ({path}): the warm-up is left out only of a phase that lasts at "
            f"least its whole seconds + 1, so it would not apply; give warmup_seconds of at "
            f"most {max(math.floor(seconds) - 1, 0)}, or longer run phases",
        )
        for path, seconds in lengths
        if 0 < seconds < skip + 1
    ]


def _check_cell_lists(spec: ExperimentSpec) -> list[SpecError]:
    """Keys of `cells` and `exclude` entries must be factors (typos would match nothing)."""
    problems = []
    for field in ("cells", "exclude"):
        for i, entry in enumerate(getattr(spec, field) or []):
            if not isinstance(entry, dict):
                problems.append(SpecError(f"{field}[{i}]", "a mapping of factor: level"))
                continue
            for key in entry:
                if key not in FACTOR_NAMES:
                    problems.append(
                        SpecError(
                            f"{field}[{i}].{key}",
                            f"not a factor; allowed: {', '.join(FACTOR_NAMES)}",
                        )
                    )
    return problems
