"""Placement advice from profiles (`contio advise`): which members share a device.

Every placement of the members on the places (disks of this host, or `HOST:DISK` for
disks of the hosts of an inventory) is evaluated with the interference model
(`contio.profile.interference`): members on one place share its device, members on one
host share its CPUs. Few members on few places make an
exhaustive search cheap (4 members on 2 places: 16 placements), so the best placement is
the best, not a heuristic's guess; past `MAX_PLACEMENTS` contio says so instead.

Objectives, over the members' predicted normalized throughput (their rate in the
placement as a fraction of their rate alone, comparable across applications whose
operations are not):
- `throughput`: the sum (aggregate normalized throughput), ties broken by fairness;
- `fairness`: the worst member's, ties broken by the sum;
- `weighted`: Σ weight · normalized, the weights given per member (default 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from contio.errors import UsageError
from contio.profile.interference import (
    DEFAULT_CONSTANTS,
    ModelConstants,
    Prediction,
    cpu_fractions,
    predict,
)
from contio.profile.schema import Profile

OBJECTIVES = ("throughput", "fairness", "weighted")
MAX_PLACEMENTS = 200_000
"""Placements an exhaustive search may evaluate (places ** members)."""
APART_LOSS = 0.05
"""A pair kept apart is worth explaining when, together, one of them would lose this much
more than in the chosen placement."""


@dataclass(frozen=True)
class Member:
    name: str
    profile: Profile
    weight: float = 1.0


@dataclass(frozen=True)
class Evaluation:
    """A placement (member name → place) and what the model predicts for it."""

    placement: dict[str, str]
    predictions: dict[str, Prediction]

    @property
    def total(self) -> float:
        return sum(p.normalized for p in self.predictions.values())

    @property
    def worst(self) -> float:
        return min(p.normalized for p in self.predictions.values())

    def weighted(self, weights: Mapping[str, float]) -> float:
        return sum(weights.get(n, 1.0) * p.normalized for n, p in self.predictions.items())

    def score(self, objective: str, weights: Mapping[str, float]) -> tuple[float, float]:
        if objective == "fairness":
            return (round(self.worst, 9), self.total)
        if objective == "weighted":
            return (self.weighted(weights), self.worst)
        return (round(self.total, 9), self.worst)


@dataclass(frozen=True)
class Advice:
    best: Evaluation
    naive: Evaluation
    """Round-robin over the places in the members' order, as a default scheduler spreads."""
    reasons: list[str]
    searched: int
    naive_overfills: list[str] = field(default_factory=list)
    """Why the naive placement would not fit (a place given more data than it holds)."""


def evaluate(
    members: Sequence[Member],
    placement: Mapping[str, str],
    cores: float,
    constants: ModelConstants = DEFAULT_CONSTANTS,
) -> Evaluation:
    """The model's predictions for `placement`: the members of each place share its device,
    the members on one host (`host_of` the place) share its `cores`."""
    by_place: dict[str, list[Member]] = {}
    by_host: dict[str, list[Member]] = {}
    for member in members:
        by_place.setdefault(placement[member.name], []).append(member)
        by_host.setdefault(host_of(placement[member.name]), []).append(member)
    predictions: dict[str, Prediction] = {}
    # The members of a host share its CPUs, wherever on it their data is.
    cpu_share: dict[str, float] = {}
    for group in by_host.values():
        limits = cpu_fractions([m.profile for m in group], cores)
        cpu_share.update({m.name: limit for m, limit in zip(group, limits, strict=True)})
    for group in by_place.values():
        found = predict(
            [m.profile for m in group], [m.name for m in group], float("inf"),
            constants=constants,
        )  # fmt: skip
        for prediction in found:
            limit = cpu_share[prediction.name]
            if limit < prediction.normalized:
                prediction = Prediction(
                    prediction.name, limit, prediction.uncertainty, "cpu",
                    prediction.ops_per_sec * limit / max(prediction.normalized, 1e-12),
                )  # fmt: skip
            predictions[prediction.name] = prediction
    return Evaluation(dict(placement), predictions)


def host_of(place: str) -> str:
    """`node2:sdb` → `node2` (a disk of a host of an inventory); `sdb` → `` (this host)."""
    host, sep, _ = place.rpartition(":")
    return host if sep else ""


def naive_placement(members: Sequence[Member], places: Sequence[str]) -> dict[str, str]:
    return {m.name: places[k % len(places)] for k, m in enumerate(members)}


def _needs(member: Member) -> float:
    """Bytes one copy's data takes (0 when its profile did not measure it)."""
    return member.profile.solo.data_bytes or 0.0


def overfilled(
    members: Sequence[Member], placement: Mapping[str, str], capacity: Mapping[str, float | None]
) -> list[str]:
    """The places `placement` gives more data than they hold, said (places of unknown
    capacity hold anything)."""
    used: dict[str, float] = {}
    for member in members:
        place = placement[member.name]
        used[place] = used.get(place, 0.0) + _needs(member)
    said = []
    for place, need in used.items():
        room = capacity.get(place)
        if room is not None and need > room:
            said.append(f"{place} would hold {_size(need)} of data in {_size(room)}")
    return said


def _size(value: float) -> str:
    return f"{value / 1024**3:.1f} GiB" if value >= 1024**3 else f"{value / 1024**2:.0f} MiB"


def _check_fit(
    members: Sequence[Member], places: Sequence[str], capacity: Mapping[str, float | None]
) -> None:
    """`UsageError` for a member whose data fits no place (when every place's capacity is
    known): no placement could hold it."""
    rooms = [capacity.get(p) for p in places]
    if any(r is None for r in rooms):
        return
    largest = max(r for r in rooms if r is not None)
    for member in members:
        if _needs(member) > largest:
            held = ", ".join(f"{p} {_size(capacity[p] or 0.0)}" for p in places)
            raise UsageError(
                f"{member.name}: its data takes {_size(_needs(member))} (its profile), more "
                f"than any place holds ({held}): it cannot fit any place"
            )


def advise(
    members: Sequence[Member],
    places: Sequence[str],
    objective: str,
    cores: float,
    constants: ModelConstants = DEFAULT_CONSTANTS,
    capacity: Mapping[str, float | None] | None = None,
) -> Advice:
    """The placement that maximises `objective`, searched exhaustively among those whose
    places hold their members' data (`capacity`: bytes per place, None unknown)."""
    if objective not in OBJECTIVES:
        raise UsageError(f"--objective: {objective!r} is not one of {', '.join(OBJECTIVES)}")
    if not places:
        raise UsageError("--places: needs at least one place")
    count = len(places) ** len(members)
    if count > MAX_PLACEMENTS:
        raise UsageError(
            f"{len(members)} members on {len(places)} places make {count:,} placements, more "
            f"than the exhaustive search evaluates ({MAX_PLACEMENTS:,}): advise fewer at once"
        )
    rooms = capacity or {}
    _check_fit(members, places, rooms)
    weights = {m.name: m.weight for m in members}
    best: Evaluation | None = None
    for chosen in itertools.product(places, repeat=len(members)):
        placement = {m.name: p for m, p in zip(members, chosen, strict=True)}
        if overfilled(members, placement, rooms):
            continue
        found = evaluate(members, placement, cores, constants)
        if best is None or found.score(objective, weights) > best.score(objective, weights):
            best = found
    if best is None:
        need = _size(sum(_needs(m) for m in members))
        raise UsageError(
            f"no placement fits: the members' data takes {need} together, and no way of "
            "dividing it among the places stays within what each holds"
        )
    spread = naive_placement(members, places)
    naive = evaluate(members, spread, cores, constants)
    reasons = explain(members, best, cores, constants)
    return Advice(best, naive, reasons, count, overfilled(members, spread, rooms))


def explain(
    members: Sequence[Member],
    best: Evaluation,
    cores: float,
    constants: ModelConstants = DEFAULT_CONSTANTS,
) -> list[str]:
    """Sentences: which pairs the placement keeps apart and what they would lose together."""
    said = []
    seen: set[tuple[str, str]] = set()
    for a, b in itertools.combinations(members, 2):
        if best.placement[a.name] == best.placement[b.name]:
            continue
        together = predict([a.profile, b.profile], [a.name, b.name], cores, constants=constants)
        for mine, other in ((together[0], b), (together[1], a)):
            kept = best.predictions[mine.name].normalized
            # Copies (`writer`, `writer#2`) say the same: once per pair of applications.
            pair = (mine.name.split("#")[0], other.name.split("#")[0])
            if kept - mine.normalized >= APART_LOSS and pair not in seen:
                seen.add(pair)
                said.append(
                    f"kept {mine.name} apart from {other.name}: on one device {mine.name} "
                    f"would run at {mine.normalized:.0%} of its solo rate ({mine.bottleneck} "
                    f"bound), here at {kept:.0%}"
                )
    for name, prediction in sorted(best.predictions.items()):
        if prediction.bottleneck == "cpu":
            host = host_of(best.placement[name])
            where = f"host {host}'s" if host else "the host's"
            said.append(f"{name} is held by {where} CPUs ({cores:g} cores), not by its device")
    return said
