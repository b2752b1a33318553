"""The Multi-user Coordinator of paper 004: tenants, a policy, and each node's shares.

Agents report every control interval (at most a second) what each tenant moved on their
node; the coordinator answers with the node's shares for the next interval, computed by
the policy in force (`contio.qos.policy`). Everything is kept in the `Store`.

A node that has not reported for `STALE_INTERVALS` intervals is *stale*: `status` says
so, and its old rates no longer make a tenant count as active for the static policy
(otherwise a dead node would keep a tenant's priority in every other node's sum). Its
agent, if alive but cut off, keeps the shares it last had (fail-static).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from contio.errors import QosConfigError
from contio.middleware.store import Store
from contio.qos.limits import counts_ios, parse_rate
from contio.qos.policy import (
    POLICIES,
    TenantShare,
    check_reservations,
    effective_capacity,
    idle_allowances,
    in_bytes,
    static_shares,
    work_conserving_shares,
)
from contio.qos.priority import priority_weight

TENANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,254}")
TENANT_RULE = (
    "1–255 ASCII letters, digits, '-' and '_', starting with a letter or digit "
    "(it names the tenant's cgroups and goes in the API's paths)"
)
DEFAULT_INTERVAL = 0.5
STALE_INTERVALS = 3
ACTIVE_FRACTION = 0.01
"""A tenant moving at least this fraction of a node's capacity there is active (static)."""


@dataclass(frozen=True)
class DiskReport:
    """What a node's brick disk did in the last interval, as its agent measured it."""

    utilization: float
    """The fraction of the interval the disk had I/O in flight (0–1)."""
    moved_bps: float | None = None
    """Bytes/s the disk moved for everyone; None: the tenants' sum."""


@dataclass(frozen=True)
class NodeAnswer:
    """What an agent is told after its report."""

    shares_bps: dict[str, float]
    """Each tenant's throttle on the node for the next interval: its share, or for an
    idle tenant under work-conserving its allowance (`idle_allowances`)."""
    limits_iops: dict[str, float]
    """Tenants' IOPS limits, which the agents write into the kernel's throttle as-is."""
    weights: dict[str, int]
    """Each tenant's BFQ weight on the node's disk, from its priority (`priority_weight`):
    the device serves queued requests in the priorities' proportions."""


class Coordinator:
    """Tenants and policy for one cluster, and the shares each node's agent applies."""

    def __init__(
        self,
        store: Store,
        interval: float = DEFAULT_INTERVAL,
        clock: Callable[[], float] = time.time,
    ):
        self.store = store
        self.interval = interval
        self._clock = clock
        self._effective: dict[str, float] = {}
        """Each node's effective capacity (`effective_capacity`); a restart starts again
        from the calibrated value, which the next saturated interval corrects."""
        self._io_bytes: dict[str, dict[str, float]] = {}
        """Per node and tenant, bytes per I/O in the last interval it moved any: what
        its IOPS bounds are worth in bytes/s there (`in_bytes`)."""
        self._throttles: dict[str, dict[str, float]] = {}
        """Per node and tenant, the throttle last answered where it is not the share
        (an idle tenant's allowance), for `status`."""

    # Configuration: validated before anything is stored, errors name the field.

    def set_tenant(
        self,
        name: str,
        priority: object,
        reservation: object = None,
        limit: object = None,
    ) -> TenantShare:
        """Add or change a tenant. Reservation and limit are rates per node, in bytes
        ("20MB/s") or I/O ("500iops") per second."""
        check_tenant_name(name)
        reserved, reserved_iops = _bound(f"{name}.reservation", reservation)
        limit_bps, limit_iops = _bound(f"{name}.limit", limit)
        tenant = TenantShare(
            name,
            cast(int, priority),  # checked there, naming the field
            reserved or 0.0,
            limit_bps,
            reserved_iops or 0.0,
            limit_iops,
        )
        tenants = {**self.store.tenants(), name: tenant}
        for node in self.store.nodes().values():
            check_reservations(node.capacity, tenants)
        self.store.put_tenant(tenant)
        return tenant

    def remove_tenant(self, name: str) -> None:
        if not self.store.remove_tenant(name):
            raise QosConfigError("tenant", self._unknown(name))

    def tenant(self, name: str) -> TenantShare:
        try:
            return self.store.tenants()[name]
        except KeyError:
            raise QosConfigError("tenant", self._unknown(name)) from None

    def _unknown(self, name: str) -> str:
        known = ", ".join(self.store.tenants()) or "none yet"
        return f"no tenant {name!r} (tenants: {known})"

    @property
    def policy(self) -> str:
        return self.store.setting("policy", "work-conserving")

    def set_policy(self, policy: object) -> None:
        if not isinstance(policy, str) or policy not in POLICIES:
            raise QosConfigError("policy", f"must be one of {', '.join(POLICIES)}, not {policy!r}")
        self.store.put_setting("policy", policy)

    # The control loop.

    def report(
        self,
        node: str,
        capacity: float,
        used: Mapping[str, float],
        disk: DiskReport | None = None,
        used_iops: Mapping[str, float] | None = None,
    ) -> NodeAnswer:
        """Take a node's measured bytes/s (and I/O/s) per tenant; return its shares, in
        bytes/s, for the next interval, and the tenants' IOPS limits.

        `capacity` is the node's calibrated bandwidth; with `disk` (what the whole disk
        moved and how busy it was) the shares divide the effective capacity instead.
        Tenants the node does not know yet count as idle there."""
        if not capacity > 0 or math.isinf(capacity):
            raise QosConfigError("capacity", f"must be a positive number, not {capacity!r}")
        now = self._clock()
        used = {name: max(0.0, float(rate)) for name, rate in used.items()}
        self._learn_io_sizes(node, used, used_iops or {})
        stored = self.store.tenants()
        iops_limits = {n: t.limit_iops for n, t in stored.items() if t.limit_iops}
        divided = self._divided_capacity(node, capacity, used, disk, stored)
        tenants = in_bytes(divided, stored, self._io_bytes.get(node, {})) if stored else {}
        shares: dict[str, float] = {}
        allowances: dict[str, float] = {}
        if tenants:
            used = {name: used.get(name, 0.0) for name in tenants}
            if self.policy == "static":
                active = self._active(node, capacity, used, now)
                shares = static_shares(divided, tenants, active)
            else:
                held = self.store.shares().get(node, {})
                shares = work_conserving_shares(divided, tenants, held, used)
                allowances = idle_allowances(divided, tenants, held, used)
        # The store keeps the law's shares (what the next busy test compares with); the
        # agent is told the throttles, an idle tenant's allowance instead of its probe.
        self.store.record_report(node, capacity, dict(used), shares, now)
        self._throttles[node] = allowances
        weights = {n: priority_weight(t.priority) for n, t in stored.items()}
        return NodeAnswer({**shares, **allowances}, iops_limits, weights)

    def _learn_io_sizes(
        self, node: str, used: Mapping[str, float], ios: Mapping[str, float]
    ) -> None:
        sizes = self._io_bytes.setdefault(node, {})
        for tenant, rate in ios.items():
            if rate > 0 and used.get(tenant, 0.0) > 0:
                sizes[tenant] = used[tenant] / float(rate)

    def _divided_capacity(
        self,
        node: str,
        capacity: float,
        used: Mapping[str, float],
        disk: DiskReport | None,
        tenants: Mapping[str, TenantShare],
    ) -> float:
        """The node's effective capacity, never below what its tenants reserved."""
        if disk is None:
            self._effective.pop(node, None)
            return capacity
        moved = sum(used.values()) if disk.moved_bps is None else disk.moved_bps
        effective = effective_capacity(capacity, self._effective.get(node), moved, disk.utilization)
        self._effective[node] = effective
        return max(effective, sum(t.reservation for t in tenants.values()))

    def _active(
        self, node: str, capacity: float, used: Mapping[str, float], now: float
    ) -> set[str]:
        """Tenants active on this node now, or on any other fresh node at its last report."""
        active = {t for t, rate in used.items() if rate >= ACTIVE_FRACTION * capacity}
        nodes = self.store.nodes()
        for other, rates in self.store.rates().items():
            record = nodes.get(other)
            if other == node or record is None or self._stale(record.last_report, now):
                continue
            active |= {t for t, r in rates.items() if r >= ACTIVE_FRACTION * record.capacity}
        return active

    def _stale(self, last_report: float, now: float) -> bool:
        return now - last_report > STALE_INTERVALS * self.interval

    def status(self) -> dict[str, Any]:
        """Policy, tenants, and per node and tenant: share in force, measured rate, and the
        measured rate as a fraction of the node's capacity."""
        now = self._clock()
        rates, shares = self.store.rates(), self.store.shares()
        tenants = self.store.tenants()
        nodes = {}
        for name, record in sorted(self.store.nodes().items()):
            measured = rates.get(name, {})
            per_tenant = {
                tenant: {
                    "target_bps": shares.get(name, {}).get(tenant),
                    "throttle_bps": self._throttles.get(name, {}).get(
                        tenant, shares.get(name, {}).get(tenant)
                    ),
                    "weight": priority_weight(tenants[tenant].priority),
                    "measured_bps": measured.get(tenant, 0.0),
                    "share_of_node": measured.get(tenant, 0.0) / record.capacity,
                    "io_bytes": self._io_bytes.get(name, {}).get(tenant),
                }
                for tenant in tenants
            }
            nodes[name] = {
                "capacity_bps": record.capacity,
                "effective_bps": self._effective.get(name, record.capacity),
                "last_report_age_s": round(now - record.last_report, 3),
                "stale": self._stale(record.last_report, now),
                "tenants": per_tenant,
            }
        return {
            "policy": self.policy,
            "interval_s": self.interval,
            "tenants": {
                name: {
                    "priority": t.priority,
                    "reservation_bps": t.reservation,
                    "limit_bps": t.limit,
                    "reservation_iops": t.reservation_iops,
                    "limit_iops": t.limit_iops,
                }
                for name, t in tenants.items()
            },
            "nodes": nodes,
        }


def check_tenant_name(name: object) -> str:
    """`name` when it is a tenant's name (`TENANT_RULE`); else `QosConfigError`."""
    if not isinstance(name, str) or not TENANT_NAME.fullmatch(name):
        text = str(name)
        shown = repr(text) if len(text) <= 60 else f"{text[:60]!r}… ({len(text)} characters)"
        raise QosConfigError("tenant", f"must be {TENANT_RULE}, not {shown}")
    return name


def _bound(field: str, value: object) -> tuple[float | None, float | None]:
    """A reservation or limit as (bytes/s, None) or (None, I/O/s); (None, None) unset."""
    if value is None:
        return None, None
    rate = float(parse_rate(field, value))
    return (None, rate) if counts_ios(value) else (rate, None)
