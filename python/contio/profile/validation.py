"""`contio advise --validate`: the recommended and the naive placements run, predicted
against measured per member.

Both placements run as one experiment (`contio.profile.together`), beside each
application alone on each place they use, so a member's measured normalized throughput
is its rate in the placement over its rate alone on the same place in the same run. The
comparison is kept as `validation.json` in the run's results folder.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from contio.output_files import replace_text
from contio.profile.placement import Evaluation
from contio.profile.together import MemberOutcome, Rate, Setting, outcomes

VALIDATION_JSON = "validation.json"


@dataclass(frozen=True)
class MemberCheck:
    """One member of one placement: what the model said, what the run measured."""

    name: str
    place: str
    predicted: float
    predicted_uncertainty: float
    measured: float | None
    measured_half_width: float | None

    @property
    def error(self) -> float | None:
        """measured − predicted, in normalized throughput (None: not measured)."""
        return None if self.measured is None else self.measured - self.predicted


@dataclass(frozen=True)
class PlacementCheck:
    label: str
    members: list[MemberCheck]

    def _measured(self) -> list[MemberCheck]:
        return [m for m in self.members if m.measured is not None]

    @property
    def complete(self) -> bool:
        return len(self._measured()) == len(self.members)

    @property
    def worst(self) -> MemberCheck | None:
        """The member with the least measured normalized throughput."""
        found = self._measured()
        return min(found, key=lambda m: m.measured or 0.0) if self.complete and found else None

    @property
    def aggregate(self) -> tuple[float, float | None] | None:
        """Σ measured normalized throughput, with its half-width (members independent)."""
        if not self.complete:
            return None
        halves = [m.measured_half_width for m in self.members]
        half = None if any(h is None for h in halves) else math.hypot(*(h or 0.0 for h in halves))
        return sum(m.measured or 0.0 for m in self.members), half


def check_placement(
    setting: Setting,
    evaluation: Evaluation,
    members: Sequence[str],
    rates: Mapping[str, list[Rate]],
) -> PlacementCheck:
    """`setting`'s members, the model's prediction beside the run's measurement."""
    measured: dict[str, MemberOutcome] = {o.name: o for o in outcomes(setting, members, rates)}
    found = []
    for name in members:
        prediction, outcome = evaluation.predictions[name], measured[name]
        check = MemberCheck(
            name, setting.placement[name], prediction.normalized, prediction.uncertainty,
            outcome.normalized, outcome.half_width,
        )  # fmt: skip
        found.append(check)
    return PlacementCheck(setting.label, found)


def placement_ratios(best: PlacementCheck, naive: PlacementCheck) -> tuple[float, float] | None:
    """(worst member, aggregate) measured in `best` over the same in `naive`; None when
    either placement did not complete or measured nothing."""
    best_worst, naive_worst = best.worst, naive.worst
    best_total, naive_total = best.aggregate, naive.aggregate
    if best_worst is None or naive_worst is None or best_total is None or naive_total is None:
        return None
    if not naive_worst.measured or not naive_total[0]:
        return None
    return (best_worst.measured or 0.0) / naive_worst.measured, best_total[0] / naive_total[0]


def median_absolute_error(checks: Sequence[PlacementCheck]) -> float | None:
    """Median |measured − predicted| over every measured member of `checks`."""
    errors = [abs(e) for c in checks for m in c.members if (e := m.error) is not None]
    return statistics.median(errors) if errors else None


def write_validation(folder: Path, checks: Sequence[PlacementCheck], objective: str) -> Path:
    """The comparison as `validation.json` in the run's results folder."""
    document = {
        "objective": objective,
        "median_absolute_error": median_absolute_error(checks),
        "placements": [
            {
                "label": c.label,
                "members": [{**asdict(m), "error": m.error} for m in c.members],
                "aggregate": c.aggregate,
                "worst": None if c.worst is None else c.worst.name,
            }
            for c in checks
        ],
    }
    path = folder / VALIDATION_JSON
    return replace_text(path, json.dumps(document, indent=2) + "\n")
