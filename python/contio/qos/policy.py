"""How a storage node's bandwidth is divided among tenants: the coordinator's control law.

Two policies, both computed per node and per control interval from the tenants'
priorities, reservations, limits and the rates the node agent measured:

- `static_shares` is paper 004's Algorithm 1: tht_i = BW · p_i / Σ p_j over the tenants
  that were active in the last interval. A tenant's throttle does not depend on what the
  others use, so bandwidth an idle-but-registered tenant leaves is lost only until the
  next interval, but bandwidth a busy tenant cannot use (it is slower than its share) is
  lost for good: the policy is not work-conserving.
- `work_conserving_shares` divides the node's capacity by weighted max-min fairness over
  what each tenant *wants* (its demand, estimated from its measured rate), after the
  reservations and within the limits, and hands whatever nobody wants to the tenants by
  priority. What an idle tenant leaves is lent to the busy ones; it is taken back in
  the interval after the tenant uses (nearly) all of what it holds.
  What an *active* tenant (moving at least its probe) leaves below its fair share is not
  lent: it keeps its fair share. Lent, it would fill the disk with the borrowers'
  requests, and the active tenant's requests would queue behind them: its latency, not
  only its bandwidth, is what its priority must protect (docs/middleware.md, "Control
  law", measured). `idle_allowances` is what an idle tenant's throttle is set to
  meanwhile: the share it would hold if it were busy, so its first requests are not held
  back by the probe it is accounted with and it is seen coming back at once.

Both divide the node's *effective* capacity (`effective_capacity`): the calibrated
bandwidth, lowered to what the disk actually moves whenever the agent sees it saturated.
A calibration reads the raw disk; through a file system the same disk moves less, and
shares of a capacity the disk cannot deliver are not the shares asked for (the
throttles add up to more than the disk, and the disk, not the priorities, divides it).

Reservations and limits may be in I/O per second instead. The law divides bytes/s, so
`in_bytes` folds them in per node and interval at the tenant's own measured bytes per
I/O there (mClock and IOCost price an I/O by its size the same way); the agents also
write an IOPS limit into the kernel's throttle, which holds it while the size is unknown.

The functions are pure: no I/O, so the control law can be tested and documented on its
own (docs/middleware.md, "Control law").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from contio.errors import QosConfigError
from contio.qos.priority import PRIORITY_MAX, PRIORITY_MIN, priority_throttles

BUSY_FRACTION = 0.9
"""A tenant that used at least this fraction of what it held is taken to want more."""
PROBE_FRACTION = 0.05
"""An idle tenant keeps at least this fraction of its fair share, so that it can show it
is busy again (it can use all of that, which makes it busy in the next interval). A
tenant moving at least this much is *active* and keeps its whole fair share."""

POLICIES = ("static", "work-conserving")

SATURATED_UTILIZATION = 0.95
"""A disk busy at least this fraction of an interval moved all it could."""
CAPACITY_SMOOTHING = 0.5
"""How far the effective capacity moves toward a saturated interval's bytes (EWMA)."""
CAPACITY_RECOVERY = 0.2
"""How fast the effective capacity grows in an unsaturated interval, up to the calibrated:
by this fraction times how far the disk was from saturated (a disk 5 % short of it: 1 %,
an idle one: 19 %), so it creeps up near saturation and comes back quickly when idle."""
CAPACITY_FLOOR = 0.25
"""The effective capacity never falls below this fraction of the calibrated one."""
UNKNOWN_IO_BYTES = 4096
"""Bytes per I/O for an IOPS reservation of a tenant not yet measured on a node: the
smallest common request, so an idle tenant's reservation takes little from the others
until its first interval there tells its size."""


@dataclass(frozen=True)
class TenantShare:
    """What one tenant is entitled to on one node: a weight and optional bounds.

    `reservation` and `limit` are in the unit of the node's capacity (bytes/s here);
    `limit` None means unlimited. `reservation_iops` and `limit_iops` bound the tenant
    in I/O per second as well; the policies see them through `in_bytes`."""

    name: str
    priority: int
    reservation: float = 0.0
    limit: float | None = None
    reservation_iops: float = 0.0
    limit_iops: float | None = None

    def __post_init__(self) -> None:
        valid = isinstance(self.priority, int) and not isinstance(self.priority, bool)
        if not valid or not PRIORITY_MIN <= self.priority <= PRIORITY_MAX:
            raise QosConfigError(
                f"tenants.{self.name}.priority",
                f"must be an integer {PRIORITY_MIN}–{PRIORITY_MAX}, not {self.priority!r}",
            )
        if self.reservation < 0:
            raise QosConfigError(f"tenants.{self.name}.reservation", "must not be negative")
        if self.limit is not None and self.limit < self.reservation:
            raise QosConfigError(
                f"tenants.{self.name}.limit",
                f"({self.limit:g}) is below the reservation ({self.reservation:g})",
            )
        if self.reservation_iops < 0:
            raise QosConfigError(f"tenants.{self.name}.reservation", "must not be negative")
        if self.limit_iops is not None and self.limit_iops < self.reservation_iops:
            raise QosConfigError(
                f"tenants.{self.name}.limit",
                f"({self.limit_iops:g} iops) is below the reservation "
                f"({self.reservation_iops:g} iops)",
            )

    @property
    def cap(self) -> float:
        return math.inf if self.limit is None else self.limit


def in_bytes(
    capacity: float, tenants: Mapping[str, TenantShare], io_bytes: Mapping[str, float]
) -> dict[str, TenantShare]:
    """The tenants with their IOPS bounds folded into bytes/s on one node.

    `io_bytes` is each tenant's measured bytes per I/O there. A reservation of R I/O/s
    becomes R × that (UNKNOWN_IO_BYTES when not measured yet), a limit of L I/O/s
    L × that (none while unknown: the kernel's IOPS throttle holds it meanwhile); each
    bound in force is the tighter of the two units'. Reservations that the folding would
    push past `capacity` keep their bytes part and share what is left in proportion."""
    reserved = {n: t.reservation for n, t in tenants.items()}
    extra = {
        n: max(0.0, t.reservation_iops * io_bytes.get(n, UNKNOWN_IO_BYTES) - t.reservation)
        for n, t in tenants.items()
    }
    room = max(0.0, capacity - sum(reserved.values()))
    asked = sum(extra.values())
    if asked > room:
        extra = {n: e * room / asked for n, e in extra.items()}
    folded = {}
    for name, t in tenants.items():
        reservation = reserved[name] + extra[name]
        limit = t.limit
        if t.limit_iops is not None and name in io_bytes:
            limit = min(t.cap, t.limit_iops * io_bytes[name])
        if limit is not None:
            limit = max(limit, reservation)
        folded[name] = TenantShare(name, t.priority, reservation, limit)
    return folded


def check_reservations(capacity: float, tenants: Mapping[str, TenantShare]) -> None:
    """Refuse reservations that a node of `capacity` cannot hold, naming the field."""
    for tenant in tenants.values():
        if tenant.reservation > capacity:
            raise QosConfigError(
                f"tenants.{tenant.name}.reservation",
                f"({tenant.reservation:g}) is above the node's capacity ({capacity:g})",
            )
    total = sum(t.reservation for t in tenants.values())
    if total > capacity:
        raise QosConfigError(
            "tenants.*.reservation",
            f"add up to {total:g}, above the node's capacity ({capacity:g})",
        )


def effective_capacity(
    calibrated: float, previous: float | None, moved: float, utilization: float | None
) -> float:
    """The bandwidth to divide in the next interval, from what the disk did in the last.

    Saturated (busy ≥ SATURATED_UTILIZATION of the interval): what it moved is what it can
    move under this mix, and the estimate moves halfway there. Otherwise it grows back
    toward `calibrated` in proportion to the idle time (CAPACITY_RECOVERY): near
    saturation by a fraction of a percent, so the overshoot before the next saturated
    interval pulls it back stays small while the disk is busy. Without a utilization
    (an agent that cannot read it) the calibrated value is used."""
    if utilization is None:
        return calibrated
    estimate = calibrated if previous is None else min(previous, calibrated)
    if utilization >= SATURATED_UTILIZATION:
        estimate += CAPACITY_SMOOTHING * (moved - estimate)
    else:
        estimate *= 1 + CAPACITY_RECOVERY * (SATURATED_UTILIZATION - utilization)
    return min(calibrated, max(CAPACITY_FLOOR * calibrated, estimate))


def static_shares(
    capacity: float, tenants: Mapping[str, TenantShare], active: set[str]
) -> dict[str, float]:
    """Paper 004's Algorithm 1 over the `active` tenants, within reservations and limits.

    Without reservations and limits this is exactly BW · p_i / Σ p_j over the active
    tenants. An inactive tenant is given the throttle it would have if it became active,
    so it can start at once; the others are recomputed with it in the next interval."""
    _check(capacity, tenants)
    shares = _by_priority(capacity, tenants, active)
    for name in tenants.keys() - active:
        shares[name] = _by_priority(capacity, tenants, active | {name})[name]
    return shares


def _by_priority(
    capacity: float, tenants: Mapping[str, TenantShare], members: set[str]
) -> dict[str, float]:
    counted = {n: t for n, t in tenants.items() if n in members}
    return water_fill(
        capacity,
        {n: float(t.priority) for n, t in counted.items()},
        {n: t.reservation for n, t in counted.items()},
        {n: t.cap for n, t in counted.items()},
    )


def activity(held: float, used: float, fair: float) -> str:
    """A tenant's state in the law, from what it `held` and `used` in the last interval:
    "busy" (used ≥ BUSY_FRACTION of held), "active" (moving at least a probe of its
    `fair` share) or "idle"."""
    if held > 0 and used >= BUSY_FRACTION * held:
        return "busy"
    return "active" if used >= PROBE_FRACTION * fair else "idle"


def demand(tenant: TenantShare, held: float, used: float, fair: float) -> float:
    """What a tenant wants next, from what it `held` and `used` in the last interval.

    Busy: unbounded, up to its limit. Active: its fair share. Idle: a probe of its fair
    share. Never less than its reservation, never more than its limit (`activity`)."""
    state = activity(held, used, fair)
    if state == "busy":
        return tenant.cap
    kept = fair if state == "active" else PROBE_FRACTION * fair
    return min(max(kept, tenant.reservation), tenant.cap)


def _fair_shares(capacity: float, tenants: Mapping[str, TenantShare]) -> dict[str, float]:
    """Each tenant's share of `capacity` by priority alone (Algorithm 1 over them all)."""
    return priority_throttles(capacity, {n: t.priority for n, t in tenants.items()})


def work_conserving_shares(
    capacity: float,
    tenants: Mapping[str, TenantShare],
    held: Mapping[str, float],
    used: Mapping[str, float],
) -> dict[str, float]:
    """Each tenant's throttle for the next interval: weighted max-min fair over demands.

    1. every tenant gets its reservation;
    2. the rest is water-filled by priority up to each tenant's demand (`demand`: busy
       tenants want up to their limits, active ones their fair shares, idle ones a
       probe);
    3. what no tenant wants is spread by priority among those below their limit.
    The throttles add up to `capacity` unless every tenant is at its limit."""
    _check(capacity, tenants)
    weights = {n: float(t.priority) for n, t in tenants.items()}
    fair = _fair_shares(capacity, tenants)
    wants = {
        n: demand(t, held.get(n, fair[n]), used.get(n, 0.0), fair[n]) for n, t in tenants.items()
    }
    floors = {n: t.reservation for n, t in tenants.items()}  # reserved is never lent
    shares = water_fill(capacity, weights, floors, wants)
    ceilings = {n: t.cap for n, t in tenants.items()}
    return water_fill(capacity, weights, shares, ceilings)


def idle_allowances(
    capacity: float,
    tenants: Mapping[str, TenantShare],
    held: Mapping[str, float],
    used: Mapping[str, float],
) -> dict[str, float]:
    """The throttle of each *idle* tenant (not busy, moving less than its probe): the
    share `work_conserving_shares` would give it if it were busy now.

    The law accounts an idle tenant with its probe (what it holds, for the busy test),
    but a probe of 5 % of a fair share is far below one request a second (1 MiB at
    1 MB/s waits a second in the kernel's throttle, and moves no counter meanwhile), so
    a throttle at the probe would keep a returning tenant from showing it is back. Its
    allowance costs nothing while it is idle, since it moves nothing; when it comes back,
    the node is oversubscribed by at most its allowance until its agent reports (a tenth
    of a second, then one round trip), and the device's priority weights divide it."""
    _check(capacity, tenants)
    allowances = {}
    for name, fair in _fair_shares(capacity, tenants).items():
        if activity(held.get(name, fair), used.get(name, 0.0), fair) != "idle":
            continue
        as_busy = work_conserving_shares(
            capacity, tenants, {**held, name: 1.0}, {**used, name: 1.0}
        )  # held 1, used 1: busy
        allowances[name] = as_busy[name]
    return allowances


def water_fill(
    capacity: float,
    weights: Mapping[str, float],
    floors: Mapping[str, float],
    ceilings: Mapping[str, float],
) -> dict[str, float]:
    """Weighted max-min fair division of `capacity`: each name gets max(floor, min(ceiling,
    λ · weight)) with the level λ chosen so the shares add up to `capacity` (or every name
    is at its ceiling). Floors must add up to at most `capacity`."""
    names = list(weights)
    ceilings = {n: max(ceilings[n], floors[n]) for n in names}

    def total(level: float) -> float:
        return sum(max(floors[n], min(ceilings[n], level * weights[n])) for n in names)

    if total(math.inf) <= capacity:
        return {n: ceilings[n] for n in names}
    # The total grows monotonically with the level; at `high` the first uncapped name
    # alone would take all of `capacity`, so the level that fills it lies below.
    low, high = 0.0, max(capacity / weights[n] for n in names)
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if total(middle) < capacity else (low, middle)
    return {n: max(floors[n], min(ceilings[n], high * weights[n])) for n in names}


def _check(capacity: float, tenants: Mapping[str, TenantShare]) -> None:
    if not capacity > 0 or math.isinf(capacity):
        raise QosConfigError("capacity", f"must be a positive number, not {capacity!r}")
    if not tenants:
        raise QosConfigError("tenants", "needs at least one tenant")
    check_reservations(capacity, tenants)
