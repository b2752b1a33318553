"""The test of a `trend` claim on one series (levels of `over` and their repetitions):
`grows` compares the largest level with the smallest (what would decide it: the
estimate's distance from `min_change`, as for `greater`); `saturates` and `valley` use
`contio.stats.saturation_point` / `find_valley` (Fieller intervals). A `valley` is
contradicted when no level falls, or when it falls and every level after the bottom is
shown to climb less than `min_change` above it (a fall to the largest level cannot be
decided: no level is left to climb).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from contio.findings.evidence import (
    CONTRADICTED,
    INCONCLUSIVE,
    REPRODUCED,
    Evidence,
    ToDecide,
    interval_text,
    pct,
)
from contio.stats import find_valley, relative_difference, saturation_point
from contio.stats.hypothesis import difference_spread, repetitions_needed
from contio.stats.scaling import bounds


def trend(
    shape: str, given_levels: Sequence[float], given_samples: Sequence[Sequence[float]],
    change: float, alpha: float, label: str, cells: tuple[str, ...], at: float | None = None,
) -> Evidence:  # fmt: skip
    """A `trend` claim on one series (levels of `over` and their repetitions)."""
    confidence = 1 - 2 * alpha
    order = sorted(range(len(given_levels)), key=lambda i: given_levels[i])
    levels = [float(given_levels[i]) for i in order]
    samples = [[float(v) for v in given_samples[i]] for i in order]
    means = [float(np.mean(s)) for s in samples]
    numbers: dict[str, float | str | None] = {
        f"mean_at_{level:g}": m for level, m in zip(levels, means, strict=True)
    }
    numbers |= {"min_change_pct": 100 * change, "confidence": confidence}
    if at is not None:
        numbers["paper_level"] = at
    few = min(len(s) for s in samples)
    spread = max(
        (
            float(np.std(s, ddof=1)) / float(np.mean(s))
            for s in samples
            if len(s) >= 2 and np.mean(s) > 0
        ),
        default=math.nan,
    )
    distance = max(change, 0.05)
    undecided: ToDecide | None = ToDecide(
        100 * distance / 2, "%", repetitions_needed(spread * math.sqrt(2), distance, alpha)
    )
    if len(levels) < 2 or few < 2:
        return Evidence(
            label, INCONCLUSIVE,
            f"{len(levels)} levels with at least {few} repetitions each: a trend needs 2 levels "
            "and 2 repetitions per level", cells, numbers, ToDecide(math.nan, "%", 3),
        )  # fmt: skip
    paper = _paper_level(at)
    if shape == "grows":
        rel = relative_difference(
            samples[-1], samples[0], f"{levels[-1]:g}", f"{levels[0]:g}", confidence
        )
        low, high = bounds(rel)
        numbers |= {
            "difference_pct": 100 * rel.estimate,
            "ci_low_pct": 100 * low,
            "ci_high_pct": 100 * high,
            "p": rel.p,
        }
        outcome = REPRODUCED if low > change else CONTRADICTED if high < change else INCONCLUSIVE
        text = f"{levels[-1]:g} against {levels[0]:g}: {pct(rel.estimate)} ({interval_text(rel)})"
        # What decides is the estimate's distance from `min_change`, not a fixed 5 %.
        gap = abs(rel.estimate - change)
        last, first = np.asarray(samples[-1]), np.asarray(samples[0])
        undecided = ToDecide(
            100 * gap, "%",
            repetitions_needed(difference_spread(last, first, 1 + change, False), gap, alpha),
        )  # fmt: skip
    elif shape == "saturates":
        found = saturation_point(levels, samples, change, confidence)
        numbers |= {"saturation_point": found.point, "peak_level": found.peak_level}
        if found.point is None:
            outcome = CONTRADICTED
            text = f"throughput still grew by ≥ {100 * change:g} % at the largest level, {levels[-1]:g}"
        elif found.confirmed:
            outcome = REPRODUCED
            text = f"saturates at {found.point:g}{paper}: no larger level adds {100 * change:g} %"
        else:
            outcome = INCONCLUSIVE
            text = (
                f"no larger level is shown to add {100 * change:g} % over {found.point:g}, "
                "nor shown to add less"
            )
    else:
        outcome, text, more_reps_help = _valley(levels, samples, change, confidence, at, numbers)
        if not more_reps_help:
            undecided = None
    to_decide = undecided if outcome == INCONCLUSIVE else None
    return Evidence(label, outcome, text, cells, numbers, to_decide)


def _paper_level(at: float | None) -> str:
    """The suffix naming the level the paper found, for a trend's text."""
    return f" (the paper: {at:g})" if at is not None else ""


def _valley(
    levels: list[float], samples: list[list[float]], change: float, confidence: float,
    at: float | None, numbers: dict[str, float | str | None],
) -> tuple[str, str, bool]:  # fmt: skip
    """A `valley` claim's outcome and text, and whether more repetitions could decide it
    when it is inconclusive (not when no level after the bottom could show a recovery).

    Reproduced: a fall of `change` from a peak and a climb of `change` after the bottom
    (`contio.stats.find_valley`). Contradicted: no level is `change` below an earlier one
    (`_no_drop`), or a fall is found and every level after its bottom is shown to climb
    less than `change` above it (`_no_climb`). Levels that end at or before the paper's
    `at` cannot show the recovery after a valley there, which the text says.
    """
    valley = find_valley(levels, samples, change, confidence)
    paper = _paper_level(at)
    short = at is not None and levels[-1] <= at
    if valley is None:
        if _no_drop(levels, samples, change, confidence):
            return CONTRADICTED, f"no level falls {100 * change:g} % below an earlier one", True
        text = f"a fall of {100 * change:g} % is neither shown nor excluded"
        if short:
            text += (
                f"; no level beyond the paper's {at:g}: this design can rule the fall out, "
                "not show a recovery"
            )
        return INCONCLUSIVE, text, True
    numbers |= {
        "peak_level": valley.peak_level, "bottom_level": valley.bottom_level,
        "depth_pct": 100 * valley.depth.estimate, "recovery_level": valley.recovery_level,
    }  # fmt: skip
    falls = (
        f"falls {pct(valley.depth.estimate)} from {valley.peak_level:g} to "
        f"{valley.bottom_level:g}{paper}"
    )
    if valley.recovered:
        return REPRODUCED, f"{falls}, climbs again at {valley.recovery_level:g}", True
    bottom = levels.index(valley.bottom_level)
    if bottom == len(levels) - 1:
        text = (
            f"{falls}, the largest level measured: no level after it could show a recovery, "
            "so this design cannot decide (it needs larger levels, not repetitions)"
        )
        return INCONCLUSIVE, text, False
    if _no_climb(levels, samples, bottom, change, confidence):
        text = (
            f"{falls} and does not climb again: every larger level is shown to be less than "
            f"{100 * change:g} % above it"
        )
        return CONTRADICTED, text, True
    text = f"{falls}; a climb of {100 * change:g} % after it is neither shown nor excluded"
    return INCONCLUSIVE, text, True


def _no_drop(
    levels: list[float], samples: list[list[float]], change: float, confidence: float
) -> bool:
    """Whether every level is shown to be less than `change` below the best level before it."""
    means = [float(np.mean(s)) for s in samples]
    for k in range(1, len(levels)):
        peak = max(range(k), key=means.__getitem__)
        rel = relative_difference(samples[k], samples[peak], "k", "peak", confidence)
        if bounds(rel)[0] <= -change:
            return False
    return True


def _no_climb(
    levels: list[float], samples: list[list[float]], bottom: int, change: float,
    confidence: float,
) -> bool:  # fmt: skip
    """Whether every level after `bottom` is shown to be less than `change` above it (the
    upper bound of its interval against the bottom below `change`)."""
    for k in range(bottom + 1, len(levels)):
        rel = relative_difference(samples[k], samples[bottom], "k", "bottom", confidence)
        if bounds(rel)[1] >= change:
            return False
    return True
