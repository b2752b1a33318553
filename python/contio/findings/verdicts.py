"""A verdict per claim: reproduced, contradicted, inconclusive, not valid here, not tested.

A claim's cells are matched into tests (`contio.findings.claim_tests`): for `greater`,
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

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from contio.experiment.findings import FindingSpec
from contio.experiment.stand_ins import StandIn, stand_in
from contio.findings.cell_data import (
    METRIC_UNITS,
    CellData,
    describe,
    selected,
)
from contio.findings.claim_tests import level_number, tests_of
from contio.findings.evidence import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_TESTED,
    NOT_VALID,
    REPRODUCED,
    Evidence,
    ToDecide,
    combined,
)
from contio.findings.validity_check import ValidityCheck, bearing_on


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
        first = min(members, key=lambda c: level_number(c.levels.get(finding.over)) or 0.0)
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
    found = tests_of(finding, cells, paired)
    metric = next((c.metric for c in cells if c.measured), "ops_per_sec")
    base = Verdict(
        id=finding.id, claim=finding.claim, kind=finding.kind, outcome=NOT_TESTED, summary="",
        paper=finding.paper, system=finding.system, subject=finding.system,
        metric=METRIC_UNITS.get(metric, metric), alpha=finding.alpha, evidence=tuple(found),
    )  # fmt: skip
    outcome, to_decide = combined(found)
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
