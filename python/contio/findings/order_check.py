"""The run-wide validity check `order-confounded`: whether cells that differ only in one
factor ran in one level order so consistently that the order's effect (a warming
device, a filling file system) and the factor's are one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from contio.findings.validity_check import ValidityCheck
from contio.results.phase_record import PhaseRecord

ORDER_TAU = 0.8
"""|Kendall τ| between a factor's level order and the execution order, pooled over the
pairs of repetitions of the sets of cells that differ only in that factor. ±1: the same
level always ran first; 0.8 with two levels: 9 of 10 pairs in one order."""
MIN_TWIN_SETS = 3
"""Fewer sets of twin cells than this cannot show an order pattern (with one set any
order is 'always the same')."""

_RECORD_COLUMNS = {f.name for f in dataclasses.fields(PhaseRecord)} | {"id"}


_LEVEL_RECORD_COLUMNS = ("target", "workload", "threads")
"""Phase record columns that are also factors (the record's value replaces the level's
in `contio.results.load`; a mix's members differ in them inside one cell)."""


def _factor_columns(frame: Any) -> list[str]:
    """The factors of the frame that vary across cells: the cells' level columns (and
    target, workload, threads where a cell has one of each), with several values."""
    found = []
    for column in frame.columns:
        if column in _RECORD_COLUMNS and column not in _LEVEL_RECORD_COLUMNS:
            continue
        text = frame[column].astype(str)
        if text.nunique() > 1 and (text.groupby(frame["cell_key"]).nunique() == 1).all():
            found.append(column)
    return found


def _order_text(meta: dict[str, Any]) -> str:
    order = meta.get("order") or {}
    if order.get("mode") == "random":
        return f"the cells ran in a random order (seed {order.get('seed')})"
    if order.get("mode") == "interleaved":
        return f"the cells ran in interleaved rounds (seed {order.get('seed')})"
    if order.get("mode") == "counterbalanced":
        return f"the cells ran in counterbalanced passes (seed {order.get('seed')})"
    return "the cells ran in their fixed order"


def _repetition_starts(frame: Any) -> dict[str, list[str]]:
    """Per cell key, when each of its repetitions (session, repetition) started."""
    found: dict[str, list[str]] = {}
    columns = ["cell_key", "session", "repetition"]
    for (key, _, _), started in frame.groupby(columns, sort=False)["started_at"].min().items():
        found.setdefault(str(key), []).append(str(started))
    return found


def order_confounded(frame: Any, meta: dict[str, Any]) -> list[ValidityCheck]:
    """Per factor with several levels: whether cells that differ only in it ran in one
    level order so consistently that the order's effect and the factor's are one.

    Kendall τ between level and time over every pair of repetitions of two such cells:
    a cell whose repetitions all ran before the other's agrees in every pair; cells
    interleaved in rounds agree in about half.
    """
    starts = _repetition_starts(frame)
    factors = _factor_columns(frame)
    cells = frame.drop_duplicates("cell_key").set_index("cell_key")
    found = []
    for factor in factors:
        others = [f for f in factors if f != factor]
        levels = list(dict.fromkeys(cells.sort_values("cell_index")[factor].astype(str)))
        rank = {level: i for i, level in enumerate(levels)}
        sets = 0
        concordant = discordant = 0
        keyed = cells.assign(**{f: cells[f].astype(str) for f in others})
        groups = keyed.groupby(others, sort=False) if others else [((), keyed)]
        for _, twins in groups:
            if twins[factor].astype(str).nunique() < 2:
                continue
            sets += 1
            items = [
                (rank[str(v)], started)
                for k, v in twins[factor].items()
                for started in starts.get(str(k), [])
            ]
            for i, (level_a, time_a) in enumerate(items):
                for level_b, time_b in items[i + 1 :]:
                    if level_a == level_b or time_a == time_b:
                        continue
                    same = (level_a < level_b) == (time_a < time_b)
                    concordant, discordant = concordant + same, discordant + (not same)
        if sets == 0 or concordant + discordant == 0:
            continue
        tau = (concordant - discordant) / (concordant + discordant)
        measured = {"kendall_tau": tau, "twin_sets": float(sets)}
        leader, led = (levels[0], concordant) if tau >= 0 else (levels[-1], discordant)
        said = (
            f"in {sets} set{'s' if sets > 1 else ''} of cells differing only in {factor}, "
            f"{leader} ran first in {led} of {concordant + discordant} pairs of repetitions "
            f"(Kendall τ {tau:+.2f}); " + _order_text(meta)
        )
        if sets < MIN_TWIN_SETS:
            verdict: bool | None = None
            said += f": fewer than {MIN_TWIN_SETS} sets cannot tell order from {factor}"
        elif abs(tau) >= ORDER_TAU:
            verdict = False
            said += (
                f": |τ| ≥ {ORDER_TAU}, the order's effect cannot be told apart from "
                f"{factor}'s (run with order: {{mode: interleaved}} or "
                "{mode: counterbalanced})"
            )
        else:
            verdict = True
        found.append(ValidityCheck("order-confounded", None, verdict, said, measured, factor))
    return found
