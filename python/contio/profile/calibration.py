"""Calibrating the interference model on pairs contio runs itself (`contio profile --pairs`).

Every unordered pair of distinct profiled applications runs together on one device (the
backend the profiles were measured on), beside each application alone, as one experiment
(`contio.profile.together`). Each pair member's measured normalized throughput (its rate
in the pair over its rate alone in the same run) is an observation; the model's
`queue_weight` and `sequential_penalty` are fitted by a grid search minimizing the median
absolute error of predicted against measured over the observations, and `model_error`
becomes the fitted model's median absolute error (at least `MIN_MODEL_ERROR`). The
result is kept as a `contio-calibration/1` file that `contio advise --calibration`
reads.
"""

from __future__ import annotations

import itertools
import json
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from contio.errors import CalibrationError, UsageError
from contio.output_files import replace_text
from contio.profile.interference import (
    DEFAULT_CONSTANTS,
    SHARING,
    ModelConstants,
    fifo_fractions,
    predict,
)
from contio.profile.schema import Profile
from contio.profile.together import MemberOutcome, Setting, disagreement, together_spec
from contio.versioned_json import read_versioned

SCHEMA = "contio-calibration/1"
"""The version of the calibration file this contio writes and reads."""
PLACE = "device"
"""The one place every pair runs on."""
QUEUE_WEIGHTS = tuple(round(0.05 * k, 2) for k in range(21))
"""The grid searched for `queue_weight`: 0 to 1 by 0.05."""
SEQUENTIAL_PENALTIES = tuple(round(0.05 * k, 2) for k in range(31))
"""The grid searched for `sequential_penalty`: 0 to 1.5 by 0.05."""
FITTED = ("queue_weight", "sequential_penalty")
"""The constants the grid search fits (`model_error` follows from the fit)."""
MIN_MODEL_ERROR = 0.02
"""The least `model_error` a calibration sets: a perfect fit on few pairs is luck."""


# --- The pairs -------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """Two applications run together on the device (`label`: the experiment's mix)."""

    label: str
    names: tuple[str, str]
    profiles: tuple[Profile, Profile]

    @property
    def setting(self) -> Setting:
        return Setting(self.label, {n: PLACE for n in self.names})


def pair_label(a: str, b: str) -> str:
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", f"{a}+{b}")


def pairs_of(profiles: Mapping[str, Profile]) -> list[Pair]:
    """Every unordered pair of the (distinct) applications, in the order given."""
    return [
        Pair(pair_label(a, b), (a, b), (profiles[a], profiles[b]))
        for a, b in itertools.combinations(profiles, 2)
    ]


def shared_backend(profiles: Mapping[str, Profile]) -> dict[str, Any]:
    """The backend definition every profile was measured on (without its `name`);
    `UsageError` naming the profiles and the key that differs."""
    backends = {
        name: {k: v for k, v in p.application.backend.items() if k != "name"}
        for name, p in profiles.items()
    }
    found = disagreement(backends)
    if found is not None:
        raise UsageError(
            f"--pairs: {found}: they were profiled on different backends, and pairs run "
            "on one device; profile them on the same backend"
        )
    return next(iter(backends.values()))


def pairs_spec(name: str, pairs: Sequence[Pair], device: dict[str, Any]) -> dict[str, Any]:
    """One experiment (as YAML data): every pair on the device, each application alone
    (a setting runs only the members it places: the pair)."""
    if not pairs:
        raise UsageError("--pairs: needs at least two applications")
    profiles: dict[str, Profile] = {}
    for pair in pairs:
        profiles.update(zip(pair.names, pair.profiles, strict=True))
    document = together_spec(name, profiles, [p.setting for p in pairs], {PLACE: device})
    document["description"] = "Profiled applications run in pairs on one device, and alone."
    return document


# --- The fit ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """One member of one pair: its measured normalized throughput in the pair."""

    pair: Pair
    member: int
    """0 or 1: which of the pair's names."""
    measured: float
    half_width: float | None = None

    @property
    def name(self) -> str:
        return self.pair.names[self.member]


def predicted(observation: Observation, constants: ModelConstants, cores: float) -> float:
    """What the model with `constants` predicts for the observed member."""
    pair = observation.pair
    found = predict(list(pair.profiles), list(pair.names), cores, constants=constants)
    return found[observation.member].normalized


def median_absolute_error(
    observations: Sequence[Observation], constants: ModelConstants, cores: float
) -> float:
    return statistics.median(
        [abs(o.measured - predicted(o, constants, cores)) for o in observations]
    )


@dataclass(frozen=True)
class Fit:
    before: ModelConstants
    after: ModelConstants
    error_before: float
    error_after: float
    observations: int
    undetermined: tuple[str, ...]
    """Fitted constants no observation depends on (kept at their value before)."""

    @property
    def well_determined(self) -> bool:
        """More observations than fitted constants (still few: read with care)."""
        return self.observations > len(FITTED)


def fit(
    observations: Sequence[Observation], cores: float, start: ModelConstants = DEFAULT_CONSTANTS
) -> Fit:
    """`queue_weight` and `sequential_penalty` on their grids minimizing the median
    absolute error (ties: the candidate nearest `start`), `model_error` the fitted error."""
    if not observations:
        raise ValueError("no observations to fit")

    def distance(c: ModelConstants) -> float:
        law = 0.0 if c.sharing == start.sharing else 10.0  # the other law only if better
        return (
            law
            + abs(c.queue_weight - start.queue_weight)
            + abs(c.sequential_penalty - start.sequential_penalty)
        )

    # The starting constants are candidates too: the fit is never worse than them. The
    # sharing law is the device's; which one its pairs follow is measured here too.
    grid = [(start.sharing, start.queue_weight, start.sequential_penalty)]
    grid += list(itertools.product(SHARING, QUEUE_WEIGHTS, SEQUENTIAL_PENALTIES))
    best: tuple[float, float, float, ModelConstants] | None = None
    for sharing, weight, penalty in grid:
        candidate = replace(start, sharing=sharing, queue_weight=weight, sequential_penalty=penalty)
        error = median_absolute_error(observations, candidate, cores)
        key = (round(error, 9), distance(candidate), error, candidate)
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None
    error_after, chosen = best[2], best[3]
    after = replace(chosen, model_error=max(MIN_MODEL_ERROR, error_after))
    return Fit(
        start, after, median_absolute_error(observations, start, cores), error_after,
        len(observations), _undetermined(observations, after, cores),
    )  # fmt: skip


def _undetermined(
    observations: Sequence[Observation], constants: ModelConstants, cores: float
) -> tuple[str, ...]:
    """The fitted constants whose grid values all predict the same for every observation."""
    found = []
    for field, grid in (("queue_weight", QUEUE_WEIGHTS),
                        ("sequential_penalty", SEQUENTIAL_PENALTIES)):  # fmt: skip
        seen = set()
        for value in grid:
            varied = (
                replace(constants, queue_weight=value)
                if field == "queue_weight"
                else replace(constants, sequential_penalty=value)
            )
            seen.add(tuple(round(predicted(o, varied, cores), 9) for o in observations))
        if len(seen) == 1:
            found.append(field)
    return tuple(found)


# --- The file --------------------------------------------------------------------------


class CalibrationModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Constants(CalibrationModel):
    queue_weight: float = Field(ge=0)
    sequential_penalty: float = Field(ge=0)
    model_error: float = Field(ge=0)
    sharing: Literal["fifo", "fair"] = "fifo"
    """The device's sharing law the constants were fitted under (not fitted itself)."""

    def model(self) -> ModelConstants:
        return ModelConstants(
            self.queue_weight, self.sequential_penalty, self.model_error, self.sharing
        )

    @classmethod
    def of(cls, constants: ModelConstants) -> Constants:
        return cls(**asdict(constants))


class BeforeAfter(CalibrationModel):
    before: Constants
    after: Constants


class ErrorBeforeAfter(CalibrationModel):
    before: float = Field(ge=0)
    after: float = Field(ge=0)


class MemberResult(CalibrationModel):
    name: str
    predicted_before: float
    predicted_after: float
    measured: float | None
    """Rate in the pair over rate alone in the same run (None: did not complete)."""
    measured_half_width: float | None


class PairResult(CalibrationModel):
    label: str
    members: list[MemberResult] = Field(min_length=2, max_length=2)


class ProfileUsed(CalibrationModel):
    name: str
    path: str
    application: str
    measured: str
    results: str


class Calibration(CalibrationModel):
    """The interference model's constants fitted on measured pairs."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, populate_by_name=True
    )

    schema_: Literal["contio-calibration/1"] = Field("contio-calibration/1", alias="schema")
    created: str
    results: str
    """The results folder of the pairs' run."""
    backend: dict[str, Any]
    cores: float
    observations: int = Field(ge=0)
    well_determined: bool
    undetermined: list[str] = Field(default_factory=list)
    constants: BeforeAfter
    median_absolute_error: ErrorBeforeAfter
    pairs: list[PairResult] = Field(min_length=1)
    profiles: list[ProfileUsed] = Field(min_length=2)
    notes: list[str] = Field(default_factory=list)

    @property
    def model_constants(self) -> ModelConstants:
        return self.constants.after.model()

    def dump(self, path: Path) -> None:
        text = json.dumps(self.model_dump(mode="json", by_alias=True), indent=2) + "\n"
        replace_text(path, text, make_parent=True)


def notes(found: Fit, pairs: Sequence[Pair]) -> list[str]:
    """What to keep in mind reading the fitted constants, in sentences."""
    fifo = found.after.sharing == "fifo" and all(
        fifo_fractions(list(p.profiles)) is not None for p in pairs
    )
    said = []
    if not found.well_determined:
        said.append(
            f"fitted on {found.observations} observation{'' if found.observations == 1 else 's'}: "
            f"the constants are not yet well determined ({len(FITTED)} constants fitted; "
            "calibrate on more pairs)"
        )
    for name in found.undetermined:
        why = ""
        if fifo:
            why = " (the fifo law, which the pairs followed, does not use it)"
        elif name == "sequential_penalty":
            why = " (no pair mixes a sequential and a random member)"
        said.append(f"no pair depends on {name}: it is kept at {getattr(found.after, name):g}{why}")
    return said


def calibration_document(
    found: Fit, pairs: Sequence[Pair], outcomes: Mapping[str, Sequence[MemberOutcome]],
    cores: float, backend: dict[str, Any], results: Path, profiles: Sequence[ProfileUsed],
    created: str,
) -> Calibration:  # fmt: skip
    """The calibration file's contents: constants and errors before and after, and each
    pair member's predictions and measurement."""
    rows = []
    for pair in pairs:
        before = predict(list(pair.profiles), list(pair.names), cores, constants=found.before)
        after = predict(list(pair.profiles), list(pair.names), cores, constants=found.after)
        measured = {o.name: o for o in outcomes[pair.label]}
        members = []
        for name, b, a in zip(pair.names, before, after, strict=True):
            row = MemberResult(
                name=name, predicted_before=b.normalized, predicted_after=a.normalized,
                measured=measured[name].normalized, measured_half_width=measured[name].half_width,
            )  # fmt: skip
            members.append(row)
        rows.append(PairResult(label=pair.label, members=members))
    return Calibration(
        created=created, results=str(results), backend=backend, cores=cores,
        observations=found.observations, well_determined=found.well_determined,
        undetermined=list(found.undetermined),
        constants=BeforeAfter(before=Constants.of(found.before), after=Constants.of(found.after)),
        median_absolute_error=ErrorBeforeAfter(before=found.error_before, after=found.error_after),
        pairs=rows, profiles=list(profiles), notes=notes(found, pairs),
    )  # fmt: skip


def load_calibration(path: Path) -> Calibration:
    """A calibration file, checked: `CalibrationError` naming the file and the problem."""
    return read_versioned(
        path, Calibration, SCHEMA, CalibrationError,
        "calibrate again with `contio profile --pairs`",
    )  # fmt: skip
