"""A claim's cells matched into tests: for `greater`, `less` and `equivalent`, each
`cells` cell against the `against` cell with the same levels of every factor neither
selector names; for `share` and the limits, each selected cell; for `degradation`,
each mix against its member's standalone cell; for `trend`, each series over `over`
of cells with the same other levels. The tests themselves are in `comparisons` and
`trends`; `verdicts` combines what they found.
"""

from __future__ import annotations

from typing import Any

from contio.experiment.findings import FindingSpec
from contio.findings.cell_data import CellData, describe, matching_key, selected
from contio.findings.comparisons import Sides, directional, equivalent, limit_use, shares
from contio.findings.evidence import NOT_TESTED, Evidence, combined
from contio.findings.trends import trend
from contio.stats import degradation


def tests_of(finding: FindingSpec, cells: list[CellData], paired: bool) -> list[Evidence]:
    """Every test of `finding` on this run's cells (none: the run lacks its cells)."""
    if finding.kind in ("greater", "less", "equivalent"):
        return _tests_against(finding, cells, paired)
    if finding.kind == "share":
        return _tests_share(finding, cells)
    if finding.kind == "degradation":
        return _tests_degradation(finding, cells, paired)
    if finding.kind in ("below_limit", "at_limit"):
        return _tests_limit(finding, cells)
    return _tests_trend(finding, cells)


def _tests_against(finding: FindingSpec, cells: list[CellData], paired: bool) -> list[Evidence]:
    assert finding.against is not None
    named = set(finding.cells) | set(finding.against)
    a_cells = selected(cells, finding.cells)
    b_by_key = {matching_key(c, named): c for c in selected(cells, finding.against)}
    pairs = [
        (a, b_by_key[matching_key(a, named)]) for a in a_cells if matching_key(a, named) in b_by_key
    ]
    found: list[Evidence] = []
    measured = [(a, b) for a, b in pairs if a.measured and b.measured]
    alpha_against = finding.alpha / max(1, len(measured))
    others = [
        f for f in (a_cells[0].levels if a_cells else {}) if f not in named and f != "runtime"
    ]
    names = (
        describe(finding.cells, list(finding.cells)),
        describe(finding.against, list(finding.against)),
    )
    for a, b in measured:
        label = describe(a.levels, [f for f in others if f in a.levels])
        sides = Sides(
            a.totals, a.repetitions, b.totals, b.repetitions, names, label, (a.key, b.key)
        )
        if finding.kind == "equivalent":
            assert finding.margin is not None
            found.append(
                equivalent(sides, finding.margin / 100, finding.alpha, alpha_against, paired)
            )
        else:
            found.append(
                directional(
                    sides, finding.kind, finding.by / 100, finding.alpha, alpha_against, paired
                )
            )
    return found


def _member_values(
    mixed: CellData, alone: CellData, application: str
) -> tuple[list[float], list[float]] | None:
    """The member's throughput per repetition in the mix and alone, on one metric: the
    cells' own when they share it, else steady ops/s (a fio member next to a database)."""
    picked = [k for k, a in enumerate(mixed.applications) if a == application]
    if not picked:
        return None
    if mixed.metric == alone.metric:
        rows, alone_values = mixed.per_container, list(alone.totals)
    else:
        rows, alone_values = mixed.ops_per_container, [sum(r) for r in alone.ops_per_container]
    return [sum(rep[k] for k in picked) for rep in rows], alone_values


def _tests_degradation(finding: FindingSpec, cells: list[CellData], paired: bool) -> list[Evidence]:
    assert finding.member is not None
    alone_by_key = {
        matching_key(c, {"mix"}): c
        for c in selected(cells, {**finding.cells, "mix": finding.member})
        if c.measured
    }
    pairs = [
        (m, alone_by_key[matching_key(m, {"mix"})])
        for m in selected(cells, finding.cells)
        if m.measured and matching_key(m, {"mix"}) in alone_by_key
    ]
    tests = 2 if finding.at_most is not None and finding.by > 0 else 1
    alpha_against = finding.alpha / max(1, len(pairs) * tests)
    found = []
    for mixed, alone in pairs:
        others = [f for f in mixed.levels if f not in ("mix", "runtime")]
        label = describe(mixed.levels, others)
        application = next(iter(dict.fromkeys(alone.applications)), "")
        values = _member_values(mixed, alone, application)
        cells_used = (mixed.key, alone.key)
        if values is None:
            found.append(
                Evidence(label, NOT_TESTED, f"no container of {mixed.label} runs {application}",
                         cells_used)
            )  # fmt: skip
            continue
        names = (f"{finding.member} in {mixed.levels.get('mix')}", f"{finding.member} alone")
        sides = Sides(
            values[0], mixed.repetitions, values[1], alone.repetitions, names, label, cells_used
        )
        parts = []
        if finding.by > 0 or finding.at_most is None:
            parts.append(
                directional(sides, "less", finding.by / 100, finding.alpha, alpha_against, paired)
            )
        if finding.at_most is not None:
            parts.append(
                directional(sides, "greater", 0.0, finding.alpha, alpha_against, paired,
                            ratio=1 - finding.at_most / 100)
            )  # fmt: skip
        outcome, to_decide = combined(parts)
        numbers = dict(parts[0].numbers)
        if len(values[0]) >= 2 and len(values[1]) >= 2 and sum(values[1]) > 0:
            lost = degradation(values[0], values[1], str(finding.member), 1 - 2 * finding.alpha)
            numbers |= {
                "degradation_pct": 100 * lost.fraction,
                "degradation_low_pct": 100 * lost.low,
                "degradation_high_pct": 100 * lost.high,
            }
            if finding.at_most is not None:
                numbers["claimed_at_most_pct"] = finding.at_most
            text = (
                f"{finding.member} loses {100 * lost.fraction:.1f} % in the mix "
                f"({100 * lost.confidence:g} % CI {100 * lost.low:.1f} to {100 * lost.high:.1f} %); "
                + "; ".join(p.text for p in parts)
            )
        else:
            text = "; ".join(p.text for p in parts)
        found.append(Evidence(label, outcome, text, cells_used, numbers, to_decide))
    return found


def _tests_limit(finding: FindingSpec, cells: list[CellData]) -> list[Evidence]:
    series = []
    for cell in selected(cells, finding.cells):
        if not cell.measured or not cell.limit_use:
            continue
        for k in range(len(cell.limit_use[0])):
            uses = [u for rep in cell.limit_use if (u := rep[k]) is not None]
            if uses:
                series.append((cell, k, uses))
    alpha_against = finding.alpha / max(1, len(series))
    margin = finding.margin / 100 if finding.margin is not None else None
    found = [
        limit_use(uses, finding.kind, finding.by / 100, margin, finding.alpha, alpha_against,
                  f"{cell.label} · container {k + 1}", (cell.key,))
        for cell, k, uses in series
    ]  # fmt: skip
    if not found and any(c.measured for c in selected(cells, finding.cells)):
        keys = tuple(c.key for c in selected(cells, finding.cells))
        found.append(
            Evidence("all cells", NOT_TESTED,
                     "no container of the cells ran under a bytes/s throttle", keys)
        )  # fmt: skip
    return found


def _tests_share(finding: FindingSpec, cells: list[CellData]) -> list[Evidence]:
    assert finding.shares is not None and finding.margin is not None
    found = []
    for cell in selected(cells, finding.cells):
        if not cell.measured:
            continue
        found.append(
            shares(cell.per_container, finding.shares, finding.margin / 100, finding.alpha,
                   cell.label, (cell.key,))
        )  # fmt: skip
    return found


def level_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _tests_trend(finding: FindingSpec, cells: list[CellData]) -> list[Evidence]:
    assert finding.trend is not None
    over = finding.over
    series: dict[tuple[tuple[str, str], ...], list[CellData]] = {}
    for cell in selected(cells, finding.cells):
        if over in cell.levels and cell.measured and level_number(cell.levels[over]) is not None:
            series.setdefault(matching_key(cell, {over, "runtime"}), []).append(cell)
    found = []
    for members in series.values():
        first = members[0]
        others = [f for f in first.levels if f not in (over, "runtime")]
        label = describe(first.levels, others) + f" over {over}"
        found.append(
            trend(
                finding.trend,
                [float(level_number(c.levels[over]) or 0) for c in members],
                [list(c.totals) for c in members],
                finding.change, finding.alpha, label, tuple(c.key for c in members), finding.at,
            )
        )  # fmt: skip
    return found
