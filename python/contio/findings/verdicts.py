"""A verdict per claim: reproduced, contradicted, inconclusive, not valid here, not tested.

A claim's cells are matched into tests (`contio.findings.comparisons`): for `greater`,
`less` and `equivalent`, each `cells` cell against the `against` cell that has the same
levels of every factor neither selector names (one test per workload × threads, say);
for `share`, each selected cell; for `trend`, each series over `over` of cells with the
same other levels. The claim is *reproduced* when every test reproduces it (an
intersection-union test: α holds for the whole claim), *contradicted* when any test
contradicts it (each at α divided by the number of tests), *inconclusive* otherwise,
with the interval and repetitions the least decided test would need.

Then what the run can vouch for:

- a validity check (`contio.findings.validity`) that failed on any cell the claim uses
  makes it *not valid here*, with the checks' reasons; a check that cannot tell keeps
  the verdict and says so;
- cells that ran a stand-in for the claim's system (FerretDB for MongoDB, `btree` for
  MySQL: `contio.experiment.stand_ins`) make the verdict one about the stand-in, with
  what the stand-in can and cannot show;
- a claim whose cells this run does not have (another profile) or skipped (no NFS in
  the kernel) is *not tested*, and says why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from contio.experiment.findings import FindingSpec
from contio.experiment.stand_ins import StandIn, stand_in
from contio.findings.cell_data import (
    METRIC_UNITS,
    CellData,
    describe,
    matching_key,
    selected,
)
from contio.findings.comparisons import Sides, directional, equivalent, limit_use, shares
from contio.findings.evidence import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_TESTED,
    NOT_VALID,
    REPRODUCED,
    Evidence,
    ToDecide,
)
from contio.findings.trends import trend
from contio.findings.validity_check import ValidityCheck, bearing_on
from contio.stats import degradation


@dataclass(frozen=True)
class Verdict:
    """What this run says about one claim, and the numbers and reasons behind it."""

    id: str
    claim: str
    kind: str
    outcome: str
    summary: str
    """One sentence: the outcome and why, for the report and `contio results`."""
    paper: str | None = None
    system: str | None = None
    subject: str | None = None
    """What the verdict is about: the system, or its stand-in (`ferretdb, standing in for
    MongoDB`)."""
    metric: str = ""
    alpha: float = 0.05
    evidence: tuple[Evidence, ...] = ()
    not_valid: tuple[str, ...] = ()
    """Reasons of the validity checks that failed on the claim's cells."""
    cannot_tell: tuple[str, ...] = ()
    """Reasons of the checks that could not tell (the verdict stands, with this caveat)."""
    stand_ins: tuple[StandIn, ...] = ()
    to_decide: ToDecide | None = None

    @property
    def decided(self) -> bool:
        return self.outcome in (REPRODUCED, CONTRADICTED)


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
        outcome, to_decide = _combine(parts)
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


def _level_number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _tests_trend(finding: FindingSpec, cells: list[CellData]) -> list[Evidence]:
    assert finding.trend is not None
    over = finding.over
    series: dict[tuple[tuple[str, str], ...], list[CellData]] = {}
    for cell in selected(cells, finding.cells):
        if over in cell.levels and cell.measured and _level_number(cell.levels[over]) is not None:
            series.setdefault(matching_key(cell, {over, "runtime"}), []).append(cell)
    found = []
    for members in series.values():
        first = members[0]
        others = [f for f in first.levels if f not in (over, "runtime")]
        label = describe(first.levels, others) + f" over {over}"
        found.append(
            trend(
                finding.trend,
                [float(_level_number(c.levels[over]) or 0) for c in members],
                [list(c.totals) for c in members],
                finding.change, finding.alpha, label, tuple(c.key for c in members), finding.at,
            )
        )  # fmt: skip
    return found


def _missing(finding: FindingSpec, cells: list[CellData]) -> str:
    """Why no test ran: the profile has no such cells, or they were skipped or failed."""
    for name, selector in finding.selectors():
        chosen = selected(cells, selector)
        if not chosen:
            levels = describe(selector, list(selector))
            return f"not tested by this profile: no cell has {levels} ({name})"
        unmeasured = [c for c in chosen if not c.measured]
        if len(unmeasured) == len(chosen):
            reasons = sorted(
                {f"{c.status}: {c.reason}" if c.reason else c.status for c in unmeasured}
            )
            return f"not tested here: its `{name}` cells have no completed repetition ({'; '.join(reasons)})"
    if finding.kind in ("greater", "less", "equivalent"):
        return "not tested by this profile: no `cells` cell has an `against` cell with the same other levels"
    if finding.kind == "degradation":
        return f"not tested by this profile: no `cells` cell has a {finding.member!r} cell with the same other levels"
    if finding.kind == "trend":
        return f"not tested by this profile: no series of measured cells over {finding.over!r}"
    return "not tested here: no measured cell"


def _combine(found: Sequence[Evidence]) -> tuple[str, ToDecide | None]:
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


def _stand_ins(finding: FindingSpec, cells: list[CellData], used: set[str]) -> tuple[StandIn, ...]:
    found: dict[str, StandIn] = {}
    for cell in cells:
        if cell.key not in used:
            continue
        for target in cell.targets:
            standing = stand_in(finding.system, target)
            if standing is not None:
                found.setdefault(target, standing)
    return tuple(found.values())


def compared_factors(finding: FindingSpec) -> set[str]:
    """The factors whose levels the claim compares: the ones its `cells` and `against`
    selectors set differently, the trend's factor, and `mix` for a degradation."""
    factors = set()
    if finding.against is not None:
        keys = set(finding.cells) | set(finding.against)
        factors |= {k for k in keys if finding.cells.get(k) != finding.against.get(k)}
    if finding.kind == "trend":
        factors.add(finding.over)
    if finding.kind == "degradation":
        factors.add("mix")
    return factors


def _checks_on(
    checks: Sequence[ValidityCheck], used: set[str], factors: set[str]
) -> tuple[list[str], list[str]]:
    """The failed and undecided checks that bear on a claim (`validity_check.bearing_on`: those
    of the cells it uses, and the run-wide ones about a factor it compares)."""
    failed, unknown = [], []
    for check in bearing_on(checks, used, factors):
        reason = f"{check.name}: {check.reason}"
        if check.passed is False:
            failed.append(reason)
        elif check.passed is None:
            unknown.append(reason)
    return list(dict.fromkeys(failed)), list(dict.fromkeys(unknown))


def _mechanism_throughout(
    finding: FindingSpec, cells: list[CellData], checks: Sequence[ValidityCheck],
    found: Sequence[Evidence],
) -> list[str]:  # fmt: skip
    """Why a trend cannot show its mechanism setting in: a `mechanism` check failed on
    every level of a series, the smallest included. "Stops growing once the CPU is
    saturated" needs a level before the saturation; flat levels that are all saturated
    show only a CPU-bound series, which is what `cpu-saturated` says of any claim."""
    if finding.kind != "trend":
        return []
    by_key = {c.key: c for c in cells}
    reasons = []
    for evidence in found:
        members = [by_key[k] for k in evidence.cells if k in by_key]
        if evidence.outcome == NOT_TESTED or len(members) < 2:
            continue
        first = min(members, key=lambda c: _level_number(c.levels.get(finding.over)) or 0.0)
        for name in finding.mechanism:
            failed = {c.cell_key: c for c in checks if c.name == name and c.passed is False}
            if all(m.key in failed for m in members):
                level = first.levels.get(finding.over)
                measured = failed[first.key].reason.split(";")[0]  # its first clause
                reasons.append(
                    f"{name} at every level, {finding.over} = {level} included "
                    f"({measured}): the claim's mechanism was in force "
                    "before the smallest level, so the series cannot show it setting in "
                    "(a host the smallest level leaves short of it could)"
                )
    return list(dict.fromkeys(reasons))


def evaluate(
    finding: FindingSpec,
    cells: list[CellData],
    checks: Sequence[ValidityCheck] = (),
    paired: bool = False,
) -> Verdict:
    """The verdict on one claim from the cells' measured metric and the validity checks."""
    if finding.kind in ("greater", "less", "equivalent"):
        found = _tests_against(finding, cells, paired)
    elif finding.kind == "share":
        found = _tests_share(finding, cells)
    elif finding.kind == "degradation":
        found = _tests_degradation(finding, cells, paired)
    elif finding.kind in ("below_limit", "at_limit"):
        found = _tests_limit(finding, cells)
    else:
        found = _tests_trend(finding, cells)
    metric = next((c.metric for c in cells if c.measured), "ops_per_sec")
    base = Verdict(
        id=finding.id, claim=finding.claim, kind=finding.kind, outcome=NOT_TESTED, summary="",
        paper=finding.paper, system=finding.system, subject=finding.system,
        metric=METRIC_UNITS.get(metric, metric), alpha=finding.alpha, evidence=tuple(found),
    )  # fmt: skip
    outcome, to_decide = _combine(found)
    if outcome == NOT_TESTED:
        reason = _missing(finding, cells) if not found else found[0].text
        return replace(base, summary=reason)
    used = {key for e in found if e.outcome != NOT_TESTED for key in e.cells}
    relevant = [c for c in checks if c.name not in finding.mechanism]
    failed, unknown = _checks_on(relevant, used, compared_factors(finding))
    failed += _mechanism_throughout(finding, cells, checks, found)
    as_claimed = [
        c.name for c in bearing_on(checks, used, compared_factors(finding))
        if c.name in finding.mechanism and c.passed is False
    ]  # fmt: skip
    # The `against` cells may run another system on purpose (MongoDB against Cassandra);
    # a degradation is about its member alone, whose standalone cells run only it.
    claimed = {c.key for c in selected(cells, finding.cells)} & used
    if finding.kind == "degradation" and finding.member is not None:
        claimed = {c.key for c in cells if c.levels.get("mix") == finding.member} & used
    standing = _stand_ins(finding, cells, claimed)
    subject = finding.system
    if standing:
        names = ", ".join(s.target for s in standing)
        subject = f"{names}, standing in for {finding.system}"
    tests = [e for e in found if e.outcome != NOT_TESTED]
    counts = ", ".join(
        f"{sum(e.outcome == o for e in tests)} {o}"
        for o in (REPRODUCED, CONTRADICTED, INCONCLUSIVE)
        if any(e.outcome == o for e in tests)
    )
    summary = f"{outcome} ({len(tests)} test{'s' if len(tests) != 1 else ''}: {counts})"
    if standing:
        summary += f"; about {subject}, not {finding.system} itself"
    if outcome == INCONCLUSIVE and to_decide is not None:
        summary += f"; {to_decide.text()}"
    if as_claimed:
        names = ", ".join(dict.fromkeys(as_claimed))
        summary += f"; {names} failed, as the claim's mechanism expects"
    if failed:
        summary = f"{NOT_VALID} (measured: {outcome}): " + "; ".join(failed)
        outcome = NOT_VALID
    elif unknown:
        summary += "; contio cannot tell whether the cells measured storage: " + "; ".join(unknown)
    return replace(
        base, outcome=outcome, summary=summary, subject=subject, not_valid=tuple(failed),
        cannot_tell=tuple(unknown), stand_ins=standing, to_decide=to_decide,
    )  # fmt: skip


@dataclass(frozen=True)
class Counts:
    """How many verdicts of each outcome (for one-line summaries)."""

    by_outcome: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, verdicts: Sequence[Verdict]) -> Counts:
        found: dict[str, int] = {}
        for v in verdicts:
            found[v.outcome] = found.get(v.outcome, 0) + 1
        return cls(found)

    def text(self) -> str:
        order = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_VALID, NOT_TESTED)
        return ", ".join(f"{self.by_outcome[o]} {o}" for o in order if o in self.by_outcome)
