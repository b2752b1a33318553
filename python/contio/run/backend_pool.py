"""The backend factor: one provisioned backend per level, made on first use, torn down at
the end (or on an interrupt), described in the results.

Levels are the spec's backend definitions; every type comes from the backend registry
(`local-dir`, the plain directory backend of older specs, and issue 5's local, striped,
gluster, nfs, path). A backend this host cannot provide (no NFS in the
kernel, for example) is not an error: its cells are skipped with the reason.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contio.backends import nfs_support, registry
from contio.backends.interface import StorageBackend
from contio.errors import BackendUnavailableError
from contio.experiment.spec import LOCAL_DIR, ExperimentSpec
from contio.run.release_each import release_each


def probe_unavailable(definition: dict[str, Any]) -> str | None:
    """Why this host cannot provide the backend, found without provisioning anything."""
    if definition.get("type") == "nfs":
        client = nfs_support.probe("client")
        if not client.available:
            return client.reason
        if definition.get("server", "local") == "local":
            server = nfs_support.probe("server")
            if not server.available:
                return server.reason
    return None


def describe_plan(definition: dict[str, Any]) -> str:
    """One line saying what a backend level will provision (paths as resolved: relative
    ones against the spec's folder, none for local-dir the temp directory), and what it
    will format or erase."""
    kind = definition.get("type", LOCAL_DIR)
    shown = {k: v for k, v in definition.items() if k != "type"}
    if kind == LOCAL_DIR and shown.get("path") is None:
        shown["path"] = f"{tempfile.gettempdir()} (the temp directory)"
    options = ", ".join(f"{k}={v}" for k, v in shown.items())
    notes = "".join(f" — {note}" for note in registry.plan_notes(definition))
    return f"{kind}" + (f" ({options})" if options else "") + notes


@dataclass
class BackendPool:
    """The experiment's backend levels, provisioned lazily and torn down together."""

    spec: ExperimentSpec
    workdir: Path | None = None
    """Where registry backends keep their state (default: contio's state directory)."""
    _ready: dict[str, StorageBackend] = field(default_factory=dict)
    _unavailable: dict[str, str] = field(default_factory=dict)

    def unavailable(self, name: str) -> str | None:
        """Why backend `name` cannot be used, if it cannot (probed before provisioning)."""
        if name not in self._unavailable and name not in self._ready:
            reason = probe_unavailable(self.spec.backend_definitions()[name])
            if reason:
                self._unavailable[name] = reason
        return self._unavailable.get(name)

    def get(self, name: str) -> StorageBackend:
        """The provisioned backend `name`; `BackendUnavailableError` if it cannot be made."""
        if name in self._unavailable:
            raise BackendUnavailableError(self._unavailable[name])
        if name not in self._ready:
            definition = dict(self.spec.backend_definitions()[name])
            kind = definition.pop("type", LOCAL_DIR)
            workdir = self.workdir / name if self.workdir else None
            backend = registry.create(kind, definition, workdir, self.spec.name)
            try:
                backend.provision()
            except BackendUnavailableError as exc:
                self._unavailable[name] = str(exc)
                raise
            self._ready[name] = backend
        return self._ready[name]

    def describe(self, name: str) -> dict[str, Any]:
        return self._ready[name].describe() if name in self._ready else {}

    def teardown(self) -> None:
        """Tear down every provisioned backend, even if one teardown fails."""
        backends = list(reversed(self._ready.values()))
        self._ready.clear()
        release_each(backend.teardown for backend in backends)
