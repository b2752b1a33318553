"""Statistics results as the sentences a report's summary states.

For example `relative_sentence(diff, context="for workload B at 50 threads")` gives
"dispersed is 12% ± 3% slower than local for workload B at 50 threads, p = 0.01".
Fieller intervals are asymmetric; "± h" is written only when both sides round to
the same number, otherwise the interval is spelled out ("12% (95% CI 9% to 16%)").
"""

from __future__ import annotations

import math

from contio.stats.fairness import Degradation, MixFairness
from contio.stats.relative import RelativeDifference
from contio.stats.saturation import Saturation
from contio.stats.ttest import TTestResult, format_p
from contio.stats.valley import Valley


def _decimals(*fractions: float, shown: tuple[float, ...] = ()) -> int:
    """0, or 1 below 1%; more while a value (of `fractions` or `shown`) short of 100%
    would print as 100% (a throughput 99.96% lower is not 0)."""
    finite = [abs(f) for f in fractions if math.isfinite(f) and f != 0]
    places = 1 if finite and min(finite) < 0.01 else 0
    every = finite + [abs(f) for f in shown if math.isfinite(f)]
    while places < 4 and any(
        f != 1 and f"{f * 100:.{places}f}" == f"{100:.{places}f}" for f in every
    ):
        places += 1
    return places


def _pct(fraction: float, decimals: int) -> str:
    return f"{fraction * 100:.{decimals}f}%"


def magnitude_with_interval(
    magnitude: float,
    low: float,
    high: float,
    confidence: float,
    has_interval: bool = True,
    note: str = "",
) -> str:
    """ "12% ± 3%" or "12% (95% CI 9% to 16%)" for a magnitude and its interval (fractions).

    `note` says why a bound is where the data cannot place it (`RelativeDifference.note`):
    "75% (95% CI 59% to 100%; MySQL in the mix is not distinguishable from 0)"; an
    infinite bound is written "interval unbounded: <note>".
    """
    if not has_interval:
        return _pct(magnitude, _decimals(magnitude))
    below, above = magnitude - low, high - magnitude
    if math.isinf(low) or math.isinf(high):
        why = f": {note}" if note else ""
        return f"{_pct(magnitude, _decimals(magnitude))} (interval unbounded{why})"
    places = _decimals(magnitude, below, above, shown=(low, high))
    if f"{below * 100:.{places}f}" == f"{above * 100:.{places}f}":
        text = f"{_pct(magnitude, places)} ± {_pct(below, places)}"
        return f"{text} ({note})" if note else text
    level = f"{confidence * 100:g}%"
    why = f"; {note}" if note else ""
    return (
        f"{_pct(magnitude, places)} ({level} CI {_pct(low, places)} to {_pct(high, places)}{why})"
    )


def _p_clause(p: float) -> str:
    if math.isnan(p):
        return ""
    text = format_p(p)
    return f", p {text}" if text.startswith("<") else f", p = {text}"


def _tail(context: str) -> str:
    return f" {context}" if context else ""


def relative_sentence(
    diff: RelativeDifference,
    context: str = "",
    more: str = "faster",
    less: str = "slower",
) -> str:
    """ "<level> is X% ± h% <more|less> than <baseline> <context>, p = …".

    `more`/`less` name the direction of a larger/smaller mean ("faster"/"slower" for
    throughput, "higher"/"lower" for latency).
    """
    word = more if diff.estimate >= 0 else less
    sign = 1 if diff.estimate >= 0 else -1
    magnitude, low, high = sign * diff.estimate, sign * diff.low, sign * diff.high
    low, high = min(low, high), max(low, high)
    amount = magnitude_with_interval(
        magnitude, low, high, diff.confidence, diff.has_interval, diff.note
    )
    text = f"{diff.level} is {amount} {word} than {diff.baseline}{_tail(context)}"
    if not diff.has_interval:
        return text + " (one repetition on a side, no interval)"
    clause = _p_clause(diff.p)
    if clause and diff.method == "fieller-paired":
        clause = clause.replace(", p", ", paired p", 1)
    text += clause
    return text if diff.significant else text + " (not significant)"


def t_test_sentence(result: TTestResult, unit: str = "", context: str = "") -> str:
    """ "Sync - Docker: mean difference 10.80 reads/s (s = 5.16), t = 36.23, p < 0.001 (paired)"."""
    unit_text = f" {unit}" if unit else ""
    verdict = "significant" if result.significant() else "not significant"
    return (
        f"{result.comparison}{_tail(context)}: mean difference "
        f"{result.mean_difference:.2f}{unit_text} (s = {result.std_deviation:.2f}), "
        f"t = {result.t:.2f}{_p_clause(result.p)} ({result.kind} t-test, {verdict} at 5%)"
    )


def degradation_change(item: Degradation) -> str:
    """ "loses 50% ± 4%" (or "gains …"): a degradation with its interval, as the sentence
    and `contio results` state it."""
    sign = 1 if item.fraction >= 0 else -1
    low, high = sorted((sign * item.low, sign * item.high))
    amount = magnitude_with_interval(
        sign * item.fraction, low, high, item.confidence, item.relative.has_interval,
        item.relative.note,
    )  # fmt: skip
    return f"{'loses' if item.fraction >= 0 else 'gains'} {amount}"


def degradation_sentence(item: Degradation, context: str = "") -> str:
    """ "MySQL loses 50% ± 4% of its standalone throughput in the mix, p < 0.001"."""
    text = f"{item.application} {degradation_change(item)} of its standalone throughput"
    return text + _tail(context) + _p_clause(item.p)


def fairness_sentence(mix: MixFairness, context: str = "") -> str:
    """ "Jain's fairness index 0.94 over MySQL (−50%) and Cassandra (−17%) …"."""
    parts = [f"{d.application} ({_pct(-d.fraction, 0)})" for d in mix.degradations]
    listed = ", ".join(parts[:-1]) + f" and {parts[-1]}"
    return f"Jain's fairness index {mix.jain_index:.2f} over {listed}{_tail(context)}"


def saturation_sentence(result: Saturation, unit: str = "containers", context: str = "") -> str:
    """ "throughput stops growing at 6 containers (no larger count adds 5% or more) …"."""
    gain = _pct(result.min_gain, _decimals(result.min_gain))
    if result.point is None:
        return f"throughput still grows at the largest count measured{_tail(context)}"
    how = "shown to add less than" if result.confirmed else "shown to add"
    reason = (
        f"every larger count is {how} {gain}"
        if result.confirmed
        else f"no larger count is {how} {gain} or more"
    )
    return f"throughput stops growing at {result.point:g} {unit} ({reason}){_tail(context)}"


def valley_sentence(valley: Valley, unit: str = "containers", context: str = "") -> str:
    """ "throughput falls 45% ± 8% from 3 to 4 containers and climbs again at 6 containers"."""
    depth = valley.depth
    amount = magnitude_with_interval(
        -depth.estimate, -depth.high, -depth.low, depth.confidence, depth.has_interval, depth.note
    )
    text = f"throughput falls {amount} from {valley.peak_level:g} to {valley.bottom_level:g} {unit}"
    if valley.recovered:
        text += f" and climbs again at {valley.recovery_level:g} {unit}"
    else:
        text += " and does not climb again within the counts measured"
    return text + _tail(context)
