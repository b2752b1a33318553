"""Storage backends by name, as specs name them (`backend: {type: gluster, …}`)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

from contio.backends.interface import BackendOptions, HostProblem, StorageBackend, parse_options
from contio.errors import BackendOptionError

# name → "module:Class"; imported on first use so `contio --help` stays fast.
BACKENDS: dict[str, str] = {
    "local-dir": "contio.backends.local_dir:LocalDirBackend",
    "local": "contio.backends.local:LocalBackend",
    "striped": "contio.backends.striped:StripedBackend",
    "gluster": "contio.backends.gluster:GlusterBackend",
    "nfs": "contio.backends.nfs:NfsBackend",
    "path": "contio.backends.path:PathBackend",
}


DEFAULT = "local-dir"
"""The backend of a definition that names no type: the plain directory backend."""


def names() -> list[str]:
    """Every backend name: the default first, then the others sorted."""
    return [DEFAULT, *sorted(set(BACKENDS) - {DEFAULT})]


def backend_class(name: str) -> type[StorageBackend]:
    """The class registered as `name`; a `BackendOptionError` lists the names when unknown."""
    target = BACKENDS.get(name)
    if target is None:
        raise BackendOptionError(
            str(name), "type", f"unknown backend; allowed: {', '.join(names())}"
        )
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


def validate_options(name: str, raw: dict[str, Any]) -> BackendOptions:
    """Check a backend's options before anything runs (exit code 2 on bad input)."""
    cls = backend_class(name)
    return parse_options(name, cls.options_model, raw)


def create(
    name: str, raw: dict[str, Any], workdir: Path | None = None, experiment: str = "contio"
) -> StorageBackend:
    """A backend `name` with validated options, not yet provisioned; `workdir` holds its
    state, `experiment` names what it makes where users see it."""
    cls = backend_class(name)
    return cls(parse_options(name, cls.options_model, raw), workdir, experiment)


def host_problems(definition: dict[str, Any]) -> list[HostProblem]:
    """What this host lacks for a spec's backend definition (`{type: …, …options}`),
    found without making anything: (option, problem) pairs (`StorageBackend.host_problems`).
    A definition whose options are bad has none here: its option check names them."""
    kind, options = _parsed(definition)
    return [] if options is None else backend_class(kind).host_problems(options)


def plan_notes(definition: dict[str, Any]) -> list[str]:
    """What `contio plan` says a backend definition will do beyond making its storage
    (`will erase /dev/sdb: it holds …`)."""
    kind, options = _parsed(definition)
    return [] if options is None else backend_class(kind).plan_notes(options)


def parsed_options(definition: dict[str, Any]) -> BackendOptions | None:
    """A definition's options, checked; None when they are bad (their check names them)."""
    return _parsed(definition)[1]


def _parsed(definition: dict[str, Any]) -> tuple[str, BackendOptions | None]:
    kind = str(definition.get("type", DEFAULT))
    try:
        return kind, validate_options(kind, {k: v for k, v in definition.items() if k != "type"})
    except BackendOptionError:
        return kind, None


def anchor_spec_paths(data: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    """A spec's parsed YAML with every relative host path of its backend definitions
    (`StorageBackend.path_options`: a local-dir `path`, a gluster `inventory`, …) made
    relative to `base_dir`, the spec's folder, as workload paths are. Anything not
    shaped as a spec is returned as it is, for the spec's own checks to name."""
    anchored = dict(data)
    if isinstance(data.get("backend"), dict):
        anchored["backend"] = _anchor(data["backend"], base_dir)
    if isinstance(data.get("backends"), dict):
        anchored["backends"] = {
            name: _anchor(definition, base_dir) if isinstance(definition, dict) else definition
            for name, definition in data["backends"].items()
        }
    return anchored


def _anchor(definition: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    kind = definition.get("type", DEFAULT)
    if not isinstance(kind, str) or kind not in BACKENDS:
        return definition
    anchored = dict(definition)
    for option in backend_class(kind).path_options:
        value = anchored.get(option)
        relative = isinstance(value, str) and value and not os.path.isabs(value)
        if relative and not str(value).startswith("~"):  # ~ is the user's home: absolute
            anchored[option] = os.path.normpath(base_dir / str(value))
    return anchored
