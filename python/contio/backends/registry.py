"""Storage backends by name, as specs name them (`backend: {type: gluster, …}`)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from contio.backends.interface import BackendOptions, StorageBackend, parse_options
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
