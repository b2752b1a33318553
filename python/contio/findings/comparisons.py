"""The test behind each kind of claim, on one pair of cells or one cell (a series: `trends`).

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
- `trend`: in `contio.findings.trends`;
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
from dataclasses import dataclass

import numpy as np
from scipy import stats as scipy_stats

from contio.findings.evidence import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_TESTED,
    REPRODUCED,
    Evidence,
    ToDecide,
    interval_text,
    outcome_of,
    p_text,
    pct,
)
from contio.stats import (
    RelativeDifference,
    paired_relative_difference,
    relative_difference,
)
from contio.stats.hypothesis import (
    difference_spread,
    one_sample_p,
    one_sided_p,
    repetitions_needed,
    tost,
)


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
    outcome = outcome_of(p_claim, p_other, alpha, alpha_against)
    to_decide = None
    if outcome == INCONCLUSIVE:
        distance = abs(rel.estimate - (ratio - 1))
        to_decide = ToDecide(
            100 * distance,
            "%",
            repetitions_needed(difference_spread(x, y, ratio, paired), distance, alpha),
        )
    test = "paired t-test" if paired else "Welch t-test"
    text = (
        f"{sides.names[0]} against {sides.names[1]}: {pct(rel.estimate)} "
        f"({interval_text(rel)}), one-sided p = {p_text(p_claim)} ({test}) "
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
    outcome = outcome_of(p_tost, p_out, alpha, alpha_against)
    to_decide = None
    if outcome == INCONCLUSIVE:
        distance = abs(margin - abs(rel.estimate))
        to_decide = ToDecide(
            100 * distance, "%",
            repetitions_needed(difference_spread(x, y, 1 + rel.estimate, paired), distance, alpha),
        )  # fmt: skip
    test = "paired" if paired else "Welch"
    text = (
        f"{sides.names[0]} against {sides.names[1]}: {pct(rel.estimate)} ({interval_text(rel)}); "
        f"within ±{100 * margin:g} %: TOST p = {p_text(p_tost)} ({test})"
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
        outcomes.append(outcome_of(p_tost, p_out, alpha, alpha_against))
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
    outcome = outcome_of(p_claim, p_other, alpha, alpha_against)
    to_decide = None
    if outcome == INCONCLUSIVE:
        to_decide = ToDecide(100 * distance, "%", repetitions_needed(sd, distance, alpha))
    text = (
        f"achieved {100 * mean:.1f} % of its limit (±{100 * half:.1f}); {wanted}: "
        f"p = {p_text(p_claim)}"
    )
    return Evidence(label, outcome, text, cells, numbers, to_decide)
