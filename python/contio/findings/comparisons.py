"""The test behind each kind of claim, on one pair of cells, one cell or one series.

Every test is one-sided at the claim's α, so its interval is the (1 − 2α) two-sided one
(90 % for α = 0.05), whose bounds are the one-sided tests' decision points:

- `greater` / `less` by `by` %: Welch's (or the paired) t-test of A − R·B, R = 1 ± by/100,
  in the claimed direction: reproduced when it rejects; contradicted when the test in
  the other direction rejects (at α / number of pairs: any one pair may contradict);
- `equivalent` within ±m %: two one-sided tests (TOST) of A − (1 − m)·B > 0 and
  A − (1 + m)·B < 0: reproduced when both reject; contradicted when A is shown outside
  the margin (one of the reversed tests rejects);
- `share`: per container, TOST of its share of the cell's total against target ± margin
  (percentage points), a one-sample t-test per side over repetitions;
- `trend`: `contio.stats.saturation_point` / `find_valley` (Fieller intervals), or for
  `grows` the largest level against the smallest (what would decide it: as for
  `greater`, the estimate's distance from `min_change`); a `valley` is contradicted when no
  level falls, or when it falls and every level after the bottom is shown to climb less
  than `min_change` above it (a fall to the largest level cannot be decided: no level
  is left to climb);
- `degradation`: the member's throughput in the mix against its standalone cell, a
  `less` test by `by` % (and a `greater` one against 1 − `at_most`), with the loss and
  its interval from `contio.stats.degradation`;
- `below_limit` / `at_limit`: per throttled container, a one-sample t-test of its
  achieved bandwidth over its limit against 1 − `by` (one-sided), or TOST within
  1 ± `margin`.

An inconclusive outcome says what would decide: the interval half-width (in % of the
baseline, or percentage points) and the repetitions per cell that would give it with
80 % power, from the observed standard deviation (a normal approximation:
n = (z₁₋α + z₀.₈)² · s² / d², s the spread of one repetition's difference, d the
distance the interval must clear).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as scipy_stats

from contio.experiment.parts import MAX_REPETITIONS
from contio.stats import (
    RelativeDifference,
    find_valley,
    paired_relative_difference,
    relative_difference,
    saturation_point,
)
from contio.stats.hypothesis import one_sample_p, one_sided_p, repetitions_needed, tost
from contio.stats.scaling import bounds

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


def _outcome(p_claim: float, p_opposite: float, alpha: float, alpha_against: float) -> str:
    """The claim shown at alpha, else its opposite at alpha_against, else neither."""
    if p_claim < alpha:
        return REPRODUCED
    if p_opposite < alpha_against:
        return CONTRADICTED
    return INCONCLUSIVE


def _pairs(a: Sequence[float], ra: Sequence[int], b: Sequence[float], rb: Sequence[int]):
    """Values of the repetitions both cells completed, matched by number."""
    common = sorted(set(ra) & set(rb))
    xa = dict(zip(ra, a, strict=True))
    xb = dict(zip(rb, b, strict=True))
    return np.array([xa[r] for r in common]), np.array([xb[r] for r in common])


def _relative(
    x: np.ndarray, y: np.ndarray, paired: bool, alpha: float, names: tuple[str, str]
) -> RelativeDifference:
    compare = paired_relative_difference if paired else relative_difference
    return compare(list(x), list(y), names[0], names[1], 1 - 2 * alpha)


def _spread(x: np.ndarray, y: np.ndarray, ratio: float, paired: bool) -> float:
    """Standard deviation of one repetition's x − ratio·y, relative to mean(y)."""
    scale = float(y.mean())
    if paired:
        return float(np.std(x - ratio * y, ddof=1)) / scale
    return math.sqrt(float(np.var(x, ddof=1)) + ratio**2 * float(np.var(y, ddof=1))) / scale


def _relative_numbers(rel: RelativeDifference) -> dict[str, float | str | None]:
    return {
        "mean": rel.mean_level,
        "mean_against": rel.mean_baseline,
        "n": rel.n_level,
        "n_against": rel.n_baseline,
        "difference_pct": 100 * rel.estimate,
        "ci_low_pct": 100 * rel.low,
        "ci_high_pct": 100 * rel.high,
        "confidence": rel.confidence,
        "method": rel.method,
    }


@dataclass(frozen=True)
class Sides:
    """The two sides of a comparison: repetitions and their numbers, and names."""

    a: Sequence[float]
    a_reps: Sequence[int]
    b: Sequence[float]
    b_reps: Sequence[int]
    names: tuple[str, str]
    label: str
    cells: tuple[str, ...]


def _arrays(sides: Sides, paired: bool) -> tuple[np.ndarray, np.ndarray]:
    if paired:
        return _pairs(sides.a, sides.a_reps, sides.b, sides.b_reps)
    return np.asarray(sides.a, dtype=float), np.asarray(sides.b, dtype=float)


def _too_few(sides: Sides, x: np.ndarray, y: np.ndarray, paired: bool) -> Evidence | None:
    if len(x) >= 2 and len(y) >= 2 and float(y.mean()) > 0:
        return None
    what = "matched repetitions" if paired else "repetitions a side"
    return Evidence(
        sides.label, INCONCLUSIVE,
        f"{len(x)} and {len(y)} {what}: a test needs at least 2 a side with a non-zero baseline",
        sides.cells, {"n": len(x), "n_against": len(y)},
        ToDecide(math.nan, "%", 3),
    )  # fmt: skip


def directional(
    sides: Sides, direction: str, by: float, alpha: float, alpha_against: float, paired: bool,
    ratio: float | None = None,
) -> Evidence:  # fmt: skip
    """A `greater` or `less` claim (by `by` %, a fraction here) on one pair of cells;
    `ratio` replaces 1 ± `by` (A against `ratio`·B: 0.25 for "more than a quarter")."""
    x, y = _arrays(sides, paired)
    few = _too_few(sides, x, y, paired)
    if few is not None:
        return few
    if ratio is None:
        ratio = 1 + by if direction == "greater" else 1 - by
    other = "less" if direction == "greater" else "greater"
    p_claim = one_sided_p(x, ratio * y, paired, direction)
    p_other = one_sided_p(x, ratio * y, paired, other)
    rel = _relative(x, y, paired, alpha, sides.names)
    numbers = _relative_numbers(rel) | {
        "p": p_claim,
        "p_opposite": p_other,
        "claimed_pct": 100 * (ratio - 1),
    }
    outcome = _outcome(p_claim, p_other, alpha, alpha_against)
    to_decide = None
    if outcome == INCONCLUSIVE:
        distance = abs(rel.estimate - (ratio - 1))
        to_decide = ToDecide(
            100 * distance, "%", repetitions_needed(_spread(x, y, ratio, paired), distance, alpha)
        )
    test = "paired t-test" if paired else "Welch t-test"
    text = (
        f"{sides.names[0]} against {sides.names[1]}: {_pct(rel.estimate)} "
        f"({_interval(rel)}), one-sided p = {_p_text(p_claim)} ({test}) "
        f"for {'more' if direction == 'greater' else 'less'}"
        + (f" than {ratio:g}×" if ratio != 1 else "")
    )
    return Evidence(sides.label, outcome, text, sides.cells, numbers, to_decide)


def equivalent(
    sides: Sides, margin: float, alpha: float, alpha_against: float, paired: bool
) -> Evidence:
    """An `equivalent` claim (within ±`margin`, a fraction) on one pair of cells: TOST."""
    x, y = _arrays(sides, paired)
    few = _too_few(sides, x, y, paired)
    if few is not None:
        return few
    p_tost, p_out = tost(x, y, margin, paired)
    rel = _relative(x, y, paired, alpha, sides.names)
    numbers = _relative_numbers(rel) | {
        "p": p_tost,
        "p_opposite": p_out,
        "margin_pct": 100 * margin,
    }
    outcome = _outcome(p_tost, p_out, alpha, alpha_against)
    to_decide = None
    if outcome == INCONCLUSIVE:
        distance = abs(margin - abs(rel.estimate))
        to_decide = ToDecide(
            100 * distance, "%",
            repetitions_needed(_spread(x, y, 1 + rel.estimate, paired), distance, alpha),
        )  # fmt: skip
    test = "paired" if paired else "Welch"
    text = (
        f"{sides.names[0]} against {sides.names[1]}: {_pct(rel.estimate)} ({_interval(rel)}); "
        f"within ±{100 * margin:g} %: TOST p = {_p_text(p_tost)} ({test})"
    )
    return Evidence(sides.label, outcome, text, sides.cells, numbers, to_decide)


def shares(
    per_container: Sequence[Sequence[float]], targets: Sequence[float], margin: float,
    alpha: float, label: str, cells: tuple[str, ...],
) -> Evidence:  # fmt: skip
    """A `share` claim on one cell: each container's fraction of the total, TOST per
    container against its target ± `margin` (fractions)."""
    values = np.asarray(per_container, dtype=float)
    if values.ndim != 2 or values.shape[1] != len(targets):
        have = values.shape[1] if values.ndim == 2 else 0
        return Evidence(
            label, NOT_TESTED,
            f"the cell has {have} containers; the claim gives {len(targets)} shares", cells,
        )  # fmt: skip
    if len(values) < 2:
        return Evidence(
            label, INCONCLUSIVE, f"{len(values)} repetition: the test needs at least 2", cells,
            {"n": len(values)}, ToDecide(math.nan, "points", 3),
        )  # fmt: skip
    fractions = values / values.sum(axis=1, keepdims=True)
    outcomes = []
    numbers: dict[str, float | str | None] = {"n": len(values), "margin_points": 100 * margin}
    worst: tuple[float, float] | None = None
    alpha_against = alpha / len(targets)
    parts = []
    q = float(scipy_stats.t.ppf(1 - alpha, len(values) - 1))
    for k, target in enumerate(targets):
        f = fractions[:, k]
        t = target / 100
        p_tost = max(one_sample_p(f, t - margin, "greater"), one_sample_p(f, t + margin, "less"))
        p_out = min(one_sample_p(f, t - margin, "less"), one_sample_p(f, t + margin, "greater"))
        mean, sd = float(f.mean()), float(f.std(ddof=1))
        half = q * sd / math.sqrt(len(f))
        outcomes.append(_outcome(p_tost, p_out, alpha, alpha_against))
        if outcomes[-1] == INCONCLUSIVE:
            distance = abs(margin - abs(mean - t))
            if worst is None or distance < worst[0]:
                worst = (distance, sd)
        numbers |= {
            f"share{k + 1}_pct": 100 * mean,
            f"share{k + 1}_ci_low_pct": 100 * (mean - half),
            f"share{k + 1}_ci_high_pct": 100 * (mean + half),
            f"share{k + 1}_target_pct": target,
            f"share{k + 1}_p": p_tost,
        }
        parts.append(f"{100 * mean:.1f} % (±{100 * half:.1f}) for {target:g} %")
    outcome = (
        CONTRADICTED if CONTRADICTED in outcomes
        else REPRODUCED if all(o == REPRODUCED for o in outcomes)
        else INCONCLUSIVE
    )  # fmt: skip
    to_decide = None
    if outcome == INCONCLUSIVE and worst is not None:
        to_decide = ToDecide(
            100 * worst[0], "points", repetitions_needed(worst[1], worst[0], alpha)
        )
    text = f"shares {', '.join(parts)}; within ±{100 * margin:g} points (TOST per container)"
    return Evidence(label, outcome, text, cells, numbers, to_decide)


def limit_use(
    uses: Sequence[float], kind: str, by: float, margin: float | None, alpha: float,
    alpha_against: float, label: str, cells: tuple[str, ...],
) -> Evidence:  # fmt: skip
    """A `below_limit` (by `by`, a fraction) or `at_limit` (within ±`margin`) claim on one
    throttled container: its achieved bandwidth over its limit, per repetition."""
    f = np.asarray(uses, dtype=float)
    numbers: dict[str, float | str | None] = {"n": len(f)}
    if len(f) < 2:
        return Evidence(
            label, INCONCLUSIVE, f"{len(f)} repetition: the test needs at least 2", cells,
            numbers, ToDecide(math.nan, "%", 3),
        )  # fmt: skip
    mean, sd = float(f.mean()), float(f.std(ddof=1))
    half = float(scipy_stats.t.ppf(1 - alpha, len(f) - 1)) * sd / math.sqrt(len(f))
    numbers |= {
        "achieved_pct_of_limit": 100 * mean,
        "ci_low_pct": 100 * (mean - half),
        "ci_high_pct": 100 * (mean + half),
    }
    if kind == "below_limit":
        bound = 1 - by
        p_claim = one_sample_p(f, bound, "less")
        p_other = one_sample_p(f, bound, "greater")
        distance = abs(mean - bound)
        wanted = f"below {100 * bound:g} % of it"
    else:
        assert margin is not None
        p_claim = max(one_sample_p(f, 1 - margin, "greater"), one_sample_p(f, 1 + margin, "less"))
        p_other = min(one_sample_p(f, 1 - margin, "less"), one_sample_p(f, 1 + margin, "greater"))
        distance = abs(margin - abs(mean - 1))
        wanted = f"within ±{100 * margin:g} % of it (TOST)"
    numbers |= {"p": p_claim, "p_opposite": p_other}
    outcome = _outcome(p_claim, p_other, alpha, alpha_against)
    to_decide = None
    if outcome == INCONCLUSIVE:
        to_decide = ToDecide(100 * distance, "%", repetitions_needed(sd, distance, alpha))
    text = (
        f"achieved {100 * mean:.1f} % of its limit (±{100 * half:.1f}); {wanted}: "
        f"p = {_p_text(p_claim)}"
    )
    return Evidence(label, outcome, text, cells, numbers, to_decide)


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
        text = f"{levels[-1]:g} against {levels[0]:g}: {_pct(rel.estimate)} ({_interval(rel)})"
        # What decides is the estimate's distance from `min_change`, not a fixed 5 %.
        gap = abs(rel.estimate - change)
        last, first = np.asarray(samples[-1]), np.asarray(samples[0])
        undecided = ToDecide(
            100 * gap, "%",
            repetitions_needed(_spread(last, first, 1 + change, False), gap, alpha),
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
        f"falls {_pct(valley.depth.estimate)} from {valley.peak_level:g} to "
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


def _pct(fraction: float) -> str:
    return f"{100 * fraction:+.1f} %"


def _interval(rel: RelativeDifference) -> str:
    if not rel.has_interval:
        return "no interval"
    high = "+inf" if math.isinf(rel.high) else f"{100 * rel.high:+.1f} %"
    return f"{100 * rel.confidence:g} % CI {100 * rel.low:+.1f} % to {high}"


def _p_text(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"
