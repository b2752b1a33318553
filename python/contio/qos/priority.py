"""Paper 004's middleware rule: tenant priorities → the throttle of each tenant on every node.

Algorithm 1 of paper 004 (docs/papers.md): with N tenants of priorities p₁ … pₙ (1–100,
100 the highest) sharing storage nodes that each deliver BW, tenant i is throttled on
every node at

    thtᵢ = BW · pᵢ / Σⱼ pⱼ,

and a single tenant gets all of BW. Paper 004's example: BW = 200 MB/s, priorities
4, 8, 8 → 40, 80 and 80 MB/s.
"""

from __future__ import annotations

from collections.abc import Mapping

from contio.errors import QosConfigError
from contio.qos.limits import IoLimits

PRIORITY_MIN, PRIORITY_MAX = 1, 100
WEIGHT_PER_PRIORITY = 10
"""A priority's BFQ weight (`priority_weight`): 1–100 → 10–1000, inside BFQ's 1–1000,
ratios kept exactly, and priority 10 at the kernel's default weight of 100."""


def priority_weight(priority: int) -> int:
    """The BFQ weight (`blkio.bfq.weight_device`) that orders a tenant's requests in the
    device by its priority, in the same proportions as its share."""
    return WEIGHT_PER_PRIORITY * priority


def priority_throttles(bandwidth: float, priorities: Mapping[str, int]) -> dict[str, float]:
    """Each tenant's throttle (same unit as `bandwidth`) from its priority."""
    if isinstance(bandwidth, bool) or not isinstance(bandwidth, (int, float)) or bandwidth <= 0:
        raise QosConfigError("bandwidth", f"must be a positive number, not {bandwidth!r}")
    if not priorities:
        raise QosConfigError("priorities", "needs at least one tenant")
    for tenant, priority in priorities.items():
        valid = isinstance(priority, int) and not isinstance(priority, bool)
        if not valid or not PRIORITY_MIN <= priority <= PRIORITY_MAX:
            raise QosConfigError(
                f"priorities.{tenant}",
                f"must be an integer {PRIORITY_MIN}–{PRIORITY_MAX} (100 is the highest), "
                f"not {priority!r}",
            )
    total = sum(priorities.values())
    return {tenant: bandwidth * p / total for tenant, p in priorities.items()}


def priority_limits(
    bandwidth_bps: int,
    priorities: Mapping[str, int],
    directions: tuple[str, ...] = ("read", "write"),
) -> dict[str, IoLimits]:
    """Paper 004's throttles as `IoLimits` per tenant: tht_i bytes/s for each of `directions`."""
    unknown = [d for d in directions if d not in ("read", "write")]
    if unknown or not directions:
        raise QosConfigError("directions", f"must be 'read' and/or 'write', not {directions!r}")
    throttles = priority_throttles(bandwidth_bps, priorities)
    return {
        tenant: IoLimits(**{f"{d}_bps": max(1, int(tht)) for d in directions})
        for tenant, tht in throttles.items()
    }
