"""When a cell has measured enough, and what one repetition measured.

Fixed rules repeat a cell a set number of times. The adaptive rule repeats it until
the Student t confidence interval of the mean ops/s is narrow enough — half-width at
most `ci_target` × mean — between `min_repetitions` and `max_repetitions` (the
sequential procedure of Jain, *The Art of Computer Systems Performance Analysis*,
§13.9: the number of repetitions follows from the observed variance).

A repetition's ops/s leaves out the warm-up: the engine's per-second time series
(`timeseries[].ops`) after `warmup_seconds`, divided by the time after it. A phase
shorter than warm-up plus one second is taken whole, and says so.
"""

from __future__ import annotations

import math

from scipy import stats as scipy_stats

from contio.experiment.parts import StopRule
from contio.stats import confidence_interval, mean, stdev

PROJECTION_LIMIT = 100_000


def wants_another(rule: StopRule, repetitions: int, throughputs: list[float]) -> bool:
    """Whether the cell needs another repetition, given the ops/s of those done so far.

    `repetitions` is the count of the fixed rules.
    """
    done = len(throughputs)
    if not rule.adaptive:
        return done < repetitions
    if done < rule.min_repetitions:
        return True
    if done >= rule.max_repetitions:
        return False
    return not reached(rule, throughputs)


def reached(rule: StopRule, throughputs: list[float]) -> bool:
    """Whether the confidence interval of `throughputs` is within the rule's target."""
    if len(throughputs) < 2:
        return False
    interval = confidence_interval(throughputs, rule.confidence)
    return interval.relative_half_width <= rule.ci_target


def repetitions_for(
    throughputs: list[float], ci_target: float, confidence: float = 0.95
) -> int | None:
    """How many repetitions with the spread seen so far would bring the interval within
    `ci_target` × mean: the smallest n with t(n − 1) · s / √n ≤ ci_target · mean, from
    the current mean and standard deviation (an estimate: s itself is uncertain with
    few repetitions). None with fewer than two, or more than `PROJECTION_LIMIT`."""
    if len(throughputs) < 2:
        return None
    spread, centre = stdev(throughputs), abs(mean(throughputs))
    if not centre or math.isnan(spread):
        return None
    ratio = spread / (ci_target * centre)
    quantile = (1 + confidence) / 2
    # t(n − 1) ≥ z, so the normal answer is a lower bound to start from.
    n = max(2, math.ceil((float(scipy_stats.norm.ppf(quantile)) * ratio) ** 2))
    while n <= PROJECTION_LIMIT:
        if float(scipy_stats.t.ppf(quantile, n - 1)) * ratio <= math.sqrt(n):
            return n
        n += 1
    return None


def projected_repetitions(rule: StopRule, throughputs: list[float]) -> int | None:
    """`repetitions_for` under an adaptive rule's target and confidence."""
    return repetitions_for(throughputs, rule.ci_target, rule.confidence)


def planned_repetitions(rule: StopRule, repetitions: int) -> tuple[int, int]:
    """The fewest and most repetitions a cell can take under the rule."""
    if rule.adaptive:
        return rule.min_repetitions, rule.max_repetitions
    return repetitions, repetitions
