"""The tenants a run finds in its cluster's coordinator: set aside for the run, put back after.

A coordinator keeps its tenants and policy across `contio qos down` and `up` (SQLite).
Tenants left by an earlier `contio qos set` would share the nodes with a run's cells (the
agents give them VNodes; the work-conserving policy keeps an idle tenant's probe for
them): a confound. So before its first phase a run writes every tenant it did not set,
and the policy, to `<cluster>/qos/set-aside-tenants.json`, then removes them: from the
coordinator's file before `up` when the run starts the middleware, through the API when
it was up already. At its end it puts them back the same way.

A run killed before its end leaves the file. The next run on the cluster takes it over
and puts its tenants back when it ends; the tenants the killed run had set, which the
file names too, are removed for good.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from contio.errors import MiddlewareError, QosConfigError
from contio.middleware.http_api import CoordinatorClient
from contio.middleware.store import Store
from contio.qos.policy import TenantShare

SET_ASIDE_FILE = "set-aside-tenants.json"


class SetAsideTenants:
    """The tenants and policy a run found, kept in `<directory>/set-aside-tenants.json`."""

    def __init__(self, directory: Path):
        self.path = directory / SET_ASIDE_FILE
        data = _read(self.path)
        self.tenants: dict[str, dict[str, Any]] = data.get("tenants", {})
        self.policy: str | None = data.get("policy")
        self._killed_run: set[str] = set(data.get("run_tenants", []))
        self._run: set[str] = set()

    def from_store(self, store_file: Path) -> list[str]:
        """Take every tenant out of a stopped coordinator's file; their names."""
        if not store_file.exists():
            return []  # never up: nothing to set aside
        store = Store(store_file)
        try:
            found = {name: _fields(t) for name, t in store.tenants().items()}
            self._keep(found, store.setting("policy", "work-conserving"))
            for name in found:
                store.remove_tenant(name)
        finally:
            store.close()
        return sorted(self.tenants)

    def from_coordinator(self, client: CoordinatorClient) -> list[str]:
        """Take every tenant out of a running coordinator; their names."""
        status = client.status()
        found = {name: _status_fields(t) for name, t in status["tenants"].items()}
        self._keep(found, status["policy"])
        for name in found:
            client.remove_tenant(name)
        return sorted(self.tenants)

    def ours(self, names: Iterable[str]) -> None:
        """Note the tenants the run set (a killed run's are not put back)."""
        if self._run.issuperset(names):
            return
        self._run.update(names)
        self._save()

    def back_to_store(self, store_file: Path) -> list[str]:
        """Put them back into a stopped coordinator's file; what could not be."""
        if not store_file.exists():
            self.path.unlink(missing_ok=True)
            return []
        store = Store(store_file)
        try:
            for name in set(self._run) | self._killed_run:
                store.remove_tenant(name)
            return self._put_back(store.put_tenant, store.put_setting)
        finally:
            store.close()

    def back_to_coordinator(self, client: CoordinatorClient) -> list[str]:
        """Put them back through a running coordinator's API; what could not be."""

        def put(tenant: TenantShare) -> None:
            client.set_tenant(tenant.name, tenant.priority, *_bounds(tenant))

        return self._put_back(put, lambda _key, policy: client.set_policy(policy))

    # Internals.

    def _keep(self, found: dict[str, dict[str, Any]], policy: str) -> None:
        for name, fields in found.items():
            if name not in self._killed_run and name not in self.tenants:
                self.tenants[name] = fields
        if self.policy is None:
            self.policy = policy
        self._save()  # before anything is removed: a kill now loses nothing

    def _put_back(
        self, put: Callable[[TenantShare], None], put_setting: Callable[[str, str], None]
    ) -> list[str]:
        problems = []
        for name, fields in list(self.tenants.items()):
            try:
                put(TenantShare(name, **fields))
                del self.tenants[name]
            except (MiddlewareError, QosConfigError) as exc:
                problems.append(f"tenant {name}: {exc}")
        if self.policy is not None:
            with contextlib.suppress(MiddlewareError, QosConfigError):
                put_setting("policy", self.policy)
        if problems:
            self._save()
            return [*problems, f"(kept in {self.path}; the next run on this cluster tries again)"]
        self.path.unlink(missing_ok=True)
        return []

    def _save(self) -> None:
        data = {"tenants": self.tenants, "policy": self.policy,
                "run_tenants": sorted(self._run | self._killed_run)}  # fmt: skip
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, self.path)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _fields(tenant: TenantShare) -> dict[str, Any]:
    return {"priority": tenant.priority, "reservation": tenant.reservation,
            "limit": tenant.limit, "reservation_iops": tenant.reservation_iops,
            "limit_iops": tenant.limit_iops}  # fmt: skip


def _status_fields(row: dict[str, Any]) -> dict[str, Any]:
    return {"priority": row["priority"], "reservation": row["reservation_bps"],
            "limit": row["limit_bps"], "reservation_iops": row["reservation_iops"],
            "limit_iops": row["limit_iops"]}  # fmt: skip


def _bounds(tenant: TenantShare) -> tuple[object, object]:
    """The tenant's reservation and limit as the API takes them: I/O/s as "Niops",
    bytes/s as a number, None when unset (a tenant has one unit per bound)."""
    reservation: object = None
    if tenant.reservation_iops:
        reservation = f"{tenant.reservation_iops:g}iops"
    elif tenant.reservation:
        reservation = int(tenant.reservation)
    limit: object = None
    if tenant.limit_iops is not None:
        limit = f"{tenant.limit_iops:g}iops"
    elif tenant.limit is not None:
        limit = int(tenant.limit)
    return reservation, limit
