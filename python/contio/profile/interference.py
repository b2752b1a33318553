"""Predicting how much members of a mix slow each other down, from their profiles.

A first model of paper 003's mechanisms, from what a profile measures alone. How a
device divides itself among members depends on its I/O scheduler (`ModelConstants.sharing`):

0. **fifo** (arrival order: `none`, `mq-deadline`, `kyber`, Linux's default for NVMe,
   virtio, loop and most SATA disks): a member's requests wait for the others' requests
   in flight ahead of them (`fifo_fractions`, Little's law on each profile's request
   rate and queue depth). Members with large requests keep their rate beside members
   with small ones, which starve. Profiles that counted no requests fall back to:

**fair** (BFQ's time slices), items 1–3:

1. **Device time.** A member alone keeps its disk busy `u` of the time (utilization /
   100). Members sharing one device need Σu of its time; while Σu ≤ 1 the device keeps
   up and each keeps its rate (less a queueing term, below). Beyond it the device
   divides its time: by max-min fairness among equal-weight members (CFQ/BFQ's time
   slices; a member that needs less than an equal share keeps what it needs), so member
   i runs at share_i / u_i of its solo rate.
2. **Queueing.** Even below saturation a member's requests wait behind the others':
   with the device busy B = Σu of the time, a member's service slows by about
   `QUEUE_WEIGHT · (B − u_i)` (the others' load it now waits behind). Bounded so a
   member is never predicted faster than alone.
3. **Sequential beside random.** A member whose requests the block layer merges (or that
   issues large requests) loses that advantage when random requests interleave with its
   own: its device time grows by `SEQUENTIAL_PENALTY` (paper 003: sequential writers
   beside random readers lost 16 % and made the readers lose 50 %) before the division.
4. **CPU.** Members on one host need Σ cores of CPU; beyond the host's cores each gets a
   proportional share, and runs at most at cores_share / cores_needed.

A member's predicted normalized throughput is the least of its device and CPU
fractions. The uncertainty is the members' solo throughput intervals (relative
half-widths, combined as independent) plus `MODEL_ERROR`, what calibration against
measured mixes leaves unexplained; until a calibration run has set it, the default
says how far apart to read the predictions.

The constants travel as a `ModelConstants` (defaults: the module's constants below);
`contio profile --pairs` fits them on measured pairs and `contio advise --calibration`
uses the fitted ones.

Homogeneous groups (k copies of one application) are predicted from the profile's own
scaling curve when it has that count: measured beats modelled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from contio.profile.schema import Profile

QUEUE_WEIGHT = 0.25
"""Fraction of the other members' device utilization a member's service slows by, below
saturation (M/D/1 gives B/(2(1−B)) of a service time of waiting at utilization B; a quarter of the
others' load keeps the first-order effect without the blow-up near 1)."""
SEQUENTIAL_PENALTY = 0.3
"""Extra device time a sequential member needs beside a random one (paper 003's 16 %
and 50 % losses, halfway): to be calibrated by `contio profile --pairs`."""
SEQUENTIAL_MERGED_PERCENT = 20.0
"""A profile that merges at least this share of its requests is sequential."""
SEQUENTIAL_BYTES_PER_IO = 128 * 1024
"""…or whose requests are at least this large on average."""
MODEL_ERROR = 0.10
"""The model's own uncertainty in normalized throughput, until calibrated (10 points)."""


@dataclass(frozen=True)
class ModelConstants:
    """The model's constants: the defaults are paper 003's starting points, a calibration
    (`contio profile --pairs`, `contio.profile.calibration`) fits its own."""

    queue_weight: float = QUEUE_WEIGHT
    sequential_penalty: float = SEQUENTIAL_PENALTY
    model_error: float = MODEL_ERROR
    sharing: str = "fifo"
    """How the device divides itself (`SHARING`): `fifo` in arrival order (the `none`,
    `mq-deadline` and `kyber` schedulers: Linux's default for NVMe, virtio, loop and most
    SATA disks), `fair` in time slices (`bfq`). Not fitted: it is the device's."""


DEFAULT_CONSTANTS = ModelConstants()
SHARING = ("fifo", "fair")
FAIR_SCHEDULERS = ("bfq", "cfq")
"""I/O schedulers that give each process time slices: the `fair` sharing law."""


@dataclass(frozen=True)
class Prediction:
    """One member's predicted throughput in the mix, as a fraction of its solo rate."""

    name: str
    normalized: float
    """1.0: as fast as alone; 0.5: half."""
    uncertainty: float
    """± in the same unit (absolute, not relative)."""
    bottleneck: str
    """"none", "device" or "cpu": what limits it in the mix."""
    ops_per_sec: float
    """normalized × its solo ops/s."""

    @property
    def degradation(self) -> float:
        """1 − normalized: the share of its solo throughput it loses."""
        return 1.0 - self.normalized


SEQUENTIAL_SHARE = 50.0
"""A traced profile is sequential when at least this % of its requests are adjacent to another."""


def sequential(profile: Profile) -> bool:
    """Whether the application's I/O is sequential: by its traced requests' offsets when
    the profile has them, else by the block layer's counters (merges, request size)."""
    solo = profile.solo
    if solo.sequential_percent is not None:
        return solo.sequential_percent >= SEQUENTIAL_SHARE
    if solo.merged_percent is not None and solo.merged_percent >= SEQUENTIAL_MERGED_PERCENT:
        return True
    return solo.bytes_per_io is not None and solo.bytes_per_io >= SEQUENTIAL_BYTES_PER_IO


def _utilization(profile: Profile) -> float:
    solo = profile.solo
    used = (solo.disk_utilization_percent or 0.0) / 100.0
    return min(1.0, max(0.0, used / solo.containers))


def _fair_division(needs: Sequence[float]) -> list[float]:
    """Max-min fair shares of one device's time (1.0) among members needing `needs`."""
    shares = [0.0] * len(needs)
    left, open_ = 1.0, [i for i, n in enumerate(needs) if n > 0]
    while open_ and left > 1e-12:
        each = left / len(open_)
        satisfied = [i for i in open_ if needs[i] - shares[i] <= each]
        if not satisfied:
            for i in open_:
                shares[i] += each
            break
        for i in satisfied:
            left -= needs[i] - shares[i]
            shares[i] = needs[i]
        open_ = [i for i in open_ if i not in satisfied]
    return shares


@dataclass(frozen=True)
class _DeviceUse:
    """What one copy of an application does to its device alone (Little's law terms)."""

    busy: float
    """u: the share of the time the device had its requests in flight."""
    response: float
    """R = q / λ: seconds a request spends in flight (queued and served)."""

    @property
    def work(self) -> float:
        """u · R: device-seconds of its requests in flight at any moment, which a request
        of another member arriving behind them waits for in arrival order."""
        return self.busy * self.response


def _device_use(profile: Profile) -> _DeviceUse | None:
    """None when the profile counted no requests (or no queue): the fifo law needs both."""
    solo = profile.solo
    iops = ((solo.read_iops or 0.0) + (solo.write_iops or 0.0)) / solo.containers
    depth = solo.queue_depth
    busy = _utilization(profile)
    if busy <= 0:
        return _DeviceUse(0.0, 0.0)
    if iops <= 0 or depth is None or depth <= 0:
        return None
    return _DeviceUse(busy, (depth / solo.containers) / iops)


def fifo_fractions(profiles: Sequence[Profile]) -> list[float] | None:
    """Each member's rate on a device serving requests in arrival order, or None when a
    profile lacks the request counts it needs.

    A member alone waits on its device u of the time, each request R seconds. Beside
    others, each of its requests also waits for the others' requests in flight ahead of
    it, Σ u_j·R_j device-seconds: its I/O waits grow by (R + Σ u_j·R_j) / R, and its rate
    becomes 1 / ((1 − u) + u · (R + Σ u_j·R_j) / R). A large-request member (long R)
    beside a small-request one keeps its rate and starves the other: what paper 003
    saw of sequential writers beside random readers."""
    uses = [_device_use(p) for p in profiles]
    if any(u is None for u in uses):
        return None
    found = []
    for i, mine in enumerate(uses):
        assert mine is not None
        if mine.busy <= 0 or mine.response <= 0:
            found.append(1.0)
            continue
        ahead = sum(u.work for j, u in enumerate(uses) if j != i and u is not None)
        slower = (mine.response + ahead) / mine.response
        found.append(1.0 / ((1.0 - mine.busy) + mine.busy * slower))
    return found


def device_fractions(
    profiles: Sequence[Profile], constants: ModelConstants = DEFAULT_CONSTANTS
) -> list[float]:
    """Each member's rate on a shared device as a fraction of its solo rate: by the fifo
    law when the device serves in arrival order and the profiles counted requests, else
    by time-fair division (`fair_fractions`)."""
    if constants.sharing == "fifo" and (found := fifo_fractions(profiles)) is not None:
        return found
    return fair_fractions(profiles, constants)


def fair_fractions(
    profiles: Sequence[Profile], constants: ModelConstants = DEFAULT_CONSTANTS
) -> list[float]:
    """Each member's rate on a device that divides its time fairly (BFQ's slices)."""
    solo = [_utilization(p) for p in profiles]
    kinds = [sequential(p) for p in profiles]
    mixed = any(kinds) and not all(kinds)
    # Device time each needs at its solo rate in this mix (more for a sequential member
    # beside random ones: its requests no longer follow each other).
    needs = [
        u * (1 + constants.sequential_penalty) if mixed and s else u
        for u, s in zip(solo, kinds, strict=True)
    ]
    busy = sum(needs)
    if busy > 1.0:
        return [
            share / need if need > 0 else 1.0
            for need, share in zip(needs, _fair_division(needs), strict=True)
        ]
    # The device keeps up: each waits behind the others' requests, and a penalised
    # member's own requests take longer.
    return [
        (u / need if need > 0 else 1.0) / (1.0 + constants.queue_weight * (busy - need))
        for u, need in zip(solo, needs, strict=True)
    ]


def cpu_fractions(profiles: Sequence[Profile], cores: float) -> list[float]:
    """Each member's rate on a shared host as a fraction of its solo rate."""
    needs = [(p.solo.cpu_cores or 0.0) / p.solo.containers for p in profiles]
    total = sum(needs)
    if total <= cores or total <= 0:
        return [1.0] * len(profiles)
    return [cores / total] * len(profiles)


def _uncertainty(profiles: Sequence[Profile], model_error: float) -> float:
    relative = []
    for p in profiles:
        solo = p.solo
        if solo.ops_per_sec_half_width is not None and solo.ops_per_sec > 0:
            relative.append(solo.ops_per_sec_half_width / solo.ops_per_sec)
    return math.sqrt(model_error**2 + sum(r * r for r in relative))


def _measured_copies(profiles: Sequence[Profile]) -> float | None:
    """k copies of one profiled application: its own curve's normalized at k, if measured."""
    first = profiles[0]
    if any(p is not first and p != first for p in profiles):
        return None
    for point in first.scaling:
        if point.containers == len(profiles):
            return point.normalized
    return None


def predict(
    profiles: Sequence[Profile],
    names: Sequence[str],
    cores: float,
    same_device: bool = True,
    constants: ModelConstants = DEFAULT_CONSTANTS,
) -> list[Prediction]:
    """Each member's throughput in a mix of `profiles` (named `names`) sharing one
    device (unless `same_device` is False: only the host) and a host of `cores` CPUs,
    with the model's `constants` (the defaults unless calibrated)."""
    if len(profiles) != len(names):
        raise ValueError("one name per profile")
    measured = _measured_copies(profiles) if len(profiles) > 1 else None
    device = device_fractions(profiles, constants) if same_device else [1.0] * len(profiles)
    cpu = cpu_fractions(profiles, cores)
    spread = _uncertainty(profiles, constants.model_error)
    found = []
    for name, profile, d, c in zip(names, profiles, device, cpu, strict=True):
        if measured is not None:
            normalized, bottleneck = measured, "measured"
        else:
            normalized = min(d, c)
            bottleneck = "none" if normalized >= 0.999 else ("device" if d <= c else "cpu")
        solo = profile.solo.ops_per_sec / profile.solo.containers
        found.append(Prediction(name, normalized, spread, bottleneck, normalized * solo))
    return found
