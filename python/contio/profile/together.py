"""Profiled applications run together (`contio advise --validate`, `contio profile
--pairs`): one experiment built from the profiles' own specs, and each member's measured
rate read back from its results.

The experiment has one mix per setting (a placement: member → place), each member's
data on its place (a mix member's own `backend`), and one `alone` mix per application
and place the settings use. A member's normalized throughput is its rate in the setting
over its application's rate alone *on the same place, in the same run*: the profile's
solo rate was measured on another day, maybe on another disk, and drift between the two
would pass for interference.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from contio.errors import ProfilesDisagree
from contio.experiment.load import validate_spec
from contio.experiment.matrix import expand
from contio.experiment.spec import ExperimentSpec
from contio.profile.schema import Profile
from contio.results.folder import load
from contio.stats.interval import confidence_interval
from contio.workload.files import WorkloadRef
from contio.workload.kinds import SERVER_KINDS

SHARED_SETTINGS = (
    "runtime", "target_options", "load_threads", "load", "repetitions", "stop",
    "warmup_seconds", "drop_caches", "properties",
)  # fmt: skip
"""What the applications of one experiment must have in common: how long and how often
it runs, in which runtime, on what data size."""


@dataclass(frozen=True)
class Setting:
    """One way to run members together: member name → place, for the members it runs
    (container order = the placement's order)."""

    label: str
    placement: dict[str, str]


@dataclass(frozen=True)
class Rate:
    """A member's steady ops/s over the repetitions, with its 95 % half-width."""

    mean: float
    half_width: float | None
    repetitions: int


def member_names(paths: Sequence[Path]) -> list[str]:
    """Members named by their profile files: `writer.profile.json` → `writer`; the same
    file again is a copy of that application, `writer#2`; another file of the same name
    (another folder) is another application, `writer-2`."""
    names: list[str] = []
    seen: dict[Path, str] = {}
    copies: dict[str, int] = {}
    for path in paths:
        key = path.resolve()
        if key in seen:
            base = seen[key]
            copies[base] = copies.get(base, 1) + 1
            names.append(f"{base}#{copies[base]}")
            continue
        stem = path.name.removesuffix(".json").removesuffix(".profile").replace("#", "-")
        base, k = stem, 1
        while base in seen.values():
            k += 1
            base = f"{stem}-{k}"
        seen[key] = base
        names.append(base)
    return names


def application_of(name: str) -> str:
    """`writer#2` → `writer`: copies of one profile are one application."""
    return name.split("#")[0]


def alone_label(application: str, place: str) -> str:
    return _slug(f"alone-{application}-on-{place}")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", text)


def _profiled_spec(profile: Profile, name: str) -> dict[str, Any]:
    if profile.application.spec is None:
        raise ProfilesDisagree(
            f"{name}: this profile keeps no spec (written by an older contio): profile the "
            "application again to run it"
        )
    return profile.application.spec


_RECORDED_WORKLOAD = {"name", "path", "kind", "options"}
"""The keys of a workload as `spec.json` records it (a `WorkloadRef`)."""


def _workloads_resolved(value: Any) -> Any:
    """`spec.json`'s recorded workloads turned back into `WorkloadRef`s, which the spec's
    validator takes as they are (the recorded form is not a spec's input form)."""
    if isinstance(value, dict):
        if set(value) == _RECORDED_WORKLOAD:
            options = tuple((str(k), None if v is None else str(v)) for k, v in value["options"])
            path = Path(value["path"]) if value["path"] else None
            return WorkloadRef(value["name"], path, value["kind"], options)
        return {k: _workloads_resolved(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_workloads_resolved(v) for v in value]
    return value


def _member(profile: Profile, name: str) -> dict[str, Any]:
    """The profiled application as a mix member (workload, target, threads)."""
    document = _workloads_resolved(_profiled_spec(profile, name))
    document["factors"] = {**document.get("factors", {}), "containers": [1]}
    spec = validate_spec(document, f"profile {name}", Path.cwd())
    member = expand(spec, f"profile {name}")[0].members[0]
    found: dict[str, Any] = {"workload": member.workload, "threads": member.threads}
    if member.kind in SERVER_KINDS:
        found["target"] = member.target
    return found


def _settings(profile: Profile, name: str) -> dict[str, Any]:
    """What the application's spec says about running it, factor levels folded in."""
    document = _profiled_spec(profile, name)
    found = {k: document[k] for k in SHARED_SETTINGS if k in document}
    factors = document.get("factors") or {}
    levels = {k: v[0] for k, v in (factors.get("properties") or {}).items() if v}
    if levels:
        found["properties"] = {**found.get("properties", {}), **levels}
    if factors.get("runtime"):
        found["runtime"] = {**found.get("runtime", {}), "type": factors["runtime"][0]}
    return found


def disagreement(
    documents: Mapping[str, Mapping[str, Any]], keys: Sequence[str] | None = None
) -> str | None:
    """How two of `documents` (by member name) differ, said on the first key (of `keys`,
    default every key) where one differs from the first document; None when all agree."""
    names = list(documents)
    first = documents[names[0]]
    for name in names[1:]:
        other = documents[name]
        for key in keys if keys is not None else sorted(set(first) | set(other)):
            if first.get(key) != other.get(key):
                return (
                    f"{names[0]} and {name} differ in `{key}` "
                    f"({first.get(key)!r} against {other.get(key)!r})"
                )
    return None


def _shared_settings(profiles: Mapping[str, Profile]) -> dict[str, Any]:
    """The settings every profile agrees on; `ProfilesDisagree` naming one that differs."""
    settings = {name: _settings(profile, name) for name, profile in profiles.items()}
    found = disagreement(settings, SHARED_SETTINGS)
    if found is not None:
        raise ProfilesDisagree(
            f"{found}: to run them together, profile them with the same settings"
        )
    return next(iter(settings.values()))


def together_spec(
    name: str,
    profiles: Mapping[str, Profile],
    settings: Sequence[Setting],
    places: Mapping[str, dict[str, Any]],
) -> dict[str, Any]:
    """The experiment spec (as YAML data) that runs every setting and the solo cells.

    `profiles` maps member names (`writer`, `writer#2`) to their profiles; `places` maps
    each place to a backend definition (`{type: local-dir, path: /mnt/sdb/contio}`)."""
    members = {n: _member(p, n) for n, p in profiles.items()}
    mixes: dict[str, list[dict[str, Any]]] = {}
    used: dict[str, None] = {}
    for setting in settings:
        # A setting runs the members it places, in its placement's order.
        mixes[setting.label] = [
            _placed(members[member], place) for member, place in setting.placement.items()
        ]
        for member, place in setting.placement.items():
            used[alone_label(application_of(member), place)] = None
    for member in profiles:
        for place in places:
            label = alone_label(application_of(member), place)
            if label in used and label not in mixes:
                mixes[label] = [_placed(members[member], place)]
    first_place = next(iter(places))
    return {
        "name": name,
        "description": "Profiled applications run together, and each alone on its place.",
        "backends": {p: dict(d) for p, d in places.items()},
        "mixes": mixes,
        "factors": {"backend": [first_place], "mix": list(mixes), "containers": [1]},
        **_shared_settings(profiles),
    }


def _placed(member: dict[str, Any], place: str) -> dict[str, Any]:
    """A member with its data on `place`, its workload named `<name>@<place>`: the rows,
    and the report's mix comparison, then tell an application on one place from the same
    application on another (its alone cell there is the one to compare with)."""
    workload = member["workload"]
    named = replace(workload, name=f"{workload.name}@{place}")
    return {**member, "workload": named, "backend": place}


class _SpecDumper(yaml.SafeDumper):
    """Writes a `WorkloadRef` as the mapping `spec.json` records, in full each time."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _workload_mapping(dumper: yaml.SafeDumper, ref: WorkloadRef) -> yaml.Node:
    recorded = {"name": ref.name, "path": str(ref.path) if ref.path else None,
                "kind": ref.kind, "options": [list(o) for o in ref.options]}  # fmt: skip
    return dumper.represent_dict(recorded)


_SpecDumper.add_representer(WorkloadRef, _workload_mapping)


def together(document: dict[str, Any]) -> tuple[ExperimentSpec, str]:
    """`together_spec`'s document validated, and as YAML text, kept with the results (its
    workloads as `spec.json` records them)."""
    spec = validate_spec(document, document["name"], Path.cwd())
    text = yaml.dump(document, Dumper=_SpecDumper, sort_keys=False, allow_unicode=True)
    return spec, text


def measured_rates(folder: Path) -> dict[str, list[Rate]]:
    """Per mix label, each container's steady ops/s (container order = member order)."""
    frame = load(folder)
    if len(frame) == 0:
        return {}
    ok = frame[(frame["phase"] == "run") & (frame["status"] == "ok")]
    found: dict[str, list[Rate]] = {}
    for label, rows in ok.groupby("mix", sort=False):
        rates = []
        for _, container in rows.groupby("container", sort=True):
            values = [float(v) for v in container["steady_ops_per_sec"]]
            interval = confidence_interval(values)
            half = None if math.isnan(interval.half_width) else interval.half_width
            rates.append(Rate(interval.mean, half, len(values)))
        found[str(label)] = rates
    return found


@dataclass(frozen=True)
class MemberOutcome:
    """A member of a setting: its measured rate against its application alone there."""

    name: str
    place: str
    normalized: float | None
    """None: the setting or its solo cell did not complete."""
    half_width: float | None
    """95 % half-width of `normalized` (the two rates' relative half-widths combined)."""


def outcomes(
    setting: Setting, members: Sequence[str], rates: Mapping[str, list[Rate]]
) -> list[MemberOutcome]:
    """Each member's normalized throughput in `setting`, from `measured_rates`."""
    mixed = rates.get(setting.label, [])
    found = []
    for k, name in enumerate(members):
        place = setting.placement[name]
        alone = rates.get(alone_label(application_of(name), place), [])
        if k >= len(mixed) or not alone or alone[0].mean <= 0:
            found.append(MemberOutcome(name, place, None, None))
            continue
        ratio = mixed[k].mean / alone[0].mean
        found.append(
            MemberOutcome(name, place, ratio, _ratio_half_width(ratio, mixed[k], alone[0]))
        )
    return found


def _ratio_half_width(ratio: float, top: Rate, bottom: Rate) -> float | None:
    if top.half_width is None or bottom.half_width is None or top.mean <= 0:
        return None
    relative = math.hypot(top.half_width / top.mean, bottom.half_width / bottom.mean)
    return ratio * relative
