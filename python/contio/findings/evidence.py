"""What a test of a claim yields: its outcome, the numbers behind it, a sentence, and
what an inconclusive test lacks, with the small formatters the tests' sentences share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from contio.experiment.parts import MAX_REPETITIONS
from contio.stats import RelativeDifference

REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
NOT_VALID = "not valid here"
NOT_TESTED = "not tested"
OUTCOMES = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_VALID, NOT_TESTED)


@dataclass(frozen=True)
class ToDecide:
    """What an inconclusive test lacks: an interval this narrow, this many repetitions."""

    half_width: float
    """The half-width that would decide, in `unit`."""
    unit: str
    """`%` (of the baseline's mean) or `points` (percentage points of a share)."""
    repetitions: int | None
    """Repetitions per cell for 80 % power (None: no finite number, the effect is 0)."""

    def text(self) -> str:
        unit = " %" if self.unit == "%" else " percentage points"
        if self.repetitions is None:
            reps = "no number of repetitions decides it: the observed effect sits on the boundary"
        elif self.repetitions > MAX_REPETITIONS:
            reps = f"more than {MAX_REPETITIONS} repetitions per cell"
        else:
            reps = f"about {self.repetitions} repetitions per cell"
        return f"a 90 % interval of ±{self.half_width:.1f}{unit} would decide: {reps}"


@dataclass(frozen=True)
class Evidence:
    """One test of a claim: its outcome, the numbers behind it and a sentence."""

    label: str
    outcome: str
    text: str
    cells: tuple[str, ...]
    """Keys of the cells it used."""
    numbers: dict[str, float | str | None] = field(default_factory=dict)
    to_decide: ToDecide | None = None


def outcome_of(p_claim: float, p_opposite: float, alpha: float, alpha_against: float) -> str:
    """The claim shown at alpha, else its opposite at alpha_against, else neither."""
    if p_claim < alpha:
        return REPRODUCED
    if p_opposite < alpha_against:
        return CONTRADICTED
    return INCONCLUSIVE


def pct(fraction: float) -> str:
    return f"{100 * fraction:+.1f} %"


def interval_text(rel: RelativeDifference) -> str:
    if not rel.has_interval:
        return "no interval"
    high = "+inf" if math.isinf(rel.high) else f"{100 * rel.high:+.1f} %"
    return f"{100 * rel.confidence:g} % CI {100 * rel.low:+.1f} % to {high}"


def p_text(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def combined(found: Sequence[Evidence]) -> tuple[str, ToDecide | None]:
    """A claim's outcome from its tests (contradicted when any is, reproduced when all
    are: an intersection-union test) and what the least decided one would need."""
    outcomes = [e.outcome for e in found]
    if CONTRADICTED in outcomes:
        return CONTRADICTED, None
    tested = [e for e in found if e.outcome != NOT_TESTED]
    if tested and all(e.outcome == REPRODUCED for e in tested):
        return REPRODUCED, None
    if not tested:
        return NOT_TESTED, None
    undecided = [
        e.to_decide for e in tested if e.outcome == INCONCLUSIVE and e.to_decide is not None
    ]

    def hardest(t: ToDecide) -> float:
        return math.inf if t.repetitions is None else float(t.repetitions)

    return INCONCLUSIVE, max(undecided, key=hardest, default=None)
