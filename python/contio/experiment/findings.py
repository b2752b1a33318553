"""Findings as data: the testable claims a spec lists under `findings:` (docs/findings.md).

A finding names the paper it comes from, the system it is about, the claim in words, the
cells it rests on (selected by factor levels) and how they are compared:

- `greater` / `less`: the `cells` measure more (less) than the `against` cells, by at
  least `by` % — a one-sided Welch t-test, or the paired one when the spec's
  `analysis.t_test` is `paired`;
- `equivalent`: the `cells` are within ±`margin` % of the `against` cells — two one-sided
  tests (TOST);
- `share`: each container of the `cells` gets its `shares` (percent of the cell's total)
  within ±`margin` percentage points — TOST per container;
- `trend`: over the levels of `over` (containers by default) throughput `grows`,
  `saturates` or shows a `valley` and climbs again (`contio.stats.saturation`, `valley`);
- `degradation`: in the `cells` (mix cells), the `member` application loses at least
  `by` % (and, with `at_most`, at most that) of what it does alone — the cell of the
  `member` mix with the same other levels (`contio.stats.fairness`);
- `below_limit` / `at_limit`: each throttled container of the `cells` achieves less than
  its bytes/s limit by at least `by` % (the throttle does not isolate it), or within
  ±`margin` % of it (the throttle holds).

The model checks each field on its own; `finding_problems` checks what depends on the
rest of the spec (factor names, defined levels, what each kind needs), each problem
naming its field path. Matching a finding to cells (`selects`) is here so that `contio
plan` and the verdicts (`contio.findings`) select the same cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator
from pydantic_core import PydanticCustomError

from contio.errors import SpecError
from contio.experiment.parts import FACTOR_NAMES, NO_CONTROLS
from contio.spec_model import SpecModel
from contio.targets.engine_targets import DATABASE_BINDINGS, TARGETS, target_names
from contio.yaml_input import Number, ScalarOrNull

CHECKS = (
    "cpu-saturated",
    "data-in-cache",
    "memory-thrashing",
    "throttle-fraction",
    "order-confounded",
)
"""The validity checks (`contio.findings.validity`) a finding may name, in the order
they are reported."""


FindingKind = Literal[
    "greater", "less", "equivalent", "share", "trend", "degradation", "below_limit", "at_limit"
]
Metric = Literal[
    "auto", "ops_per_sec", "mib_per_sec", "read_mib_per_sec", "written_mib_per_sec", "iops"
]
"""Per repetition, summed over a cell's containers. `auto`: MiB/s (read + written) for
file workloads, ops/s otherwise — the numbers `contio results` prints."""
TrendShape = Literal["grows", "saturates", "valley"]

KINDS_WITH_AGAINST = ("greater", "less", "equivalent")
LIMIT_KINDS = ("below_limit", "at_limit")
DEFAULT_MIN_CHANGE = {"grows": 0.0, "saturates": 5.0, "valley": 10.0}
"""Percent: the smallest gain (saturates, grows) or drop (valley) a trend counts."""


def _paper_text(value: Any) -> Any:
    # YAML reads `paper: 000` as the integer 0 and `002` as 2: give them back their digits.
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 999:
        return f"{value:03d}"
    return value


PaperId = Annotated[str, BeforeValidator(_paper_text), Field(pattern=r"^[0-9]{3}$")]
Level = ScalarOrNull
Selector = dict[str, Level]


class FindingSpec(SpecModel):
    """One claim of a paper (or a user's own) as a test on the cells of an experiment."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=80)
    """Names the finding in the report, `contio results` and findings.json."""
    claim: str = Field(min_length=1)
    """The finding in words, as a sentence."""
    kind: FindingKind
    cells: Selector = Field(min_length=1)
    """Factor → level of the cells the claim is about (`{backend: dispersed}`)."""
    against: Selector | None = None
    """greater, less, equivalent: the cells compared with (`{backend: local}`)."""
    paper: PaperId | None = None
    """The paper's short id ("000", "002", "003", "004": docs/papers.md)."""
    system: str | None = Field(None, min_length=1)
    """What the claim is about: a database (MongoDB, MySQL, Cassandra: a cell running
    another target is a stand-in) or a storage layout (GlusterFS dispersed)."""
    metric: Metric = "auto"
    alpha: Number = Field(0.05, gt=0, lt=0.5)
    margin: Number | None = Field(None, gt=0, lt=100)
    """equivalent: ±% of the `against` mean; share: ± percentage points of each share."""
    by: Number = Field(0.0, ge=0)
    """greater, less: the smallest difference claimed, % of the `against` mean."""
    shares: list[Number] | None = Field(None, min_length=1)
    """share: each container's claimed percent of the cell's total, in container order."""
    trend: TrendShape | None = None
    over: str = "containers"
    """trend: the factor whose levels the trend runs over."""
    at: Number | None = None
    """trend: the level the paper saw it at (saturation point, valley bottom), for the text."""
    min_change: Number | None = Field(None, ge=0, lt=100)
    """trend: % gain (saturates, grows) or drop (valley) that counts; default 5, 0, 10."""
    member: str | None = Field(None, min_length=1)
    """degradation: the mix of one application whose share of the `cells` is compared
    with its standalone cell (`mysql` in `mysql+cassandra-write`)."""
    at_most: Number | None = Field(None, gt=0, le=100)
    """degradation: the largest loss claimed, % of the standalone mean."""
    mechanism: list[str] = Field(default_factory=list)
    """Validity checks whose failure is what the claim is about (`cpu-saturated` for
    "throughput stops growing once the CPU is saturated"): they do not make the verdict
    *not valid here*; the summary says they failed, as the claim expects."""

    @field_validator("mechanism")
    @classmethod
    def _mechanism(cls, names: list[str]) -> list[str]:
        unknown = [n for n in names if n not in CHECKS]
        if unknown:
            raise PydanticCustomError(
                "bad_check", "{names}: not validity checks; allowed: {allowed}",
                {"names": ", ".join(unknown), "allowed": ", ".join(CHECKS)},
            )  # fmt: skip
        return names

    @field_validator("shares")
    @classmethod
    def _shares(cls, values: list[float] | None) -> list[float] | None:
        if values is None:
            return None
        if any(v <= 0 or v > 100 for v in values):
            raise PydanticCustomError("bad_share", "each share is a percent in (0, 100]", {})
        if abs(sum(values) - 100) > 0.5:
            raise PydanticCustomError(
                "bad_shares",
                "shares are percents of the cell's total and add up to 100, not {total}",
                {"total": f"{sum(values):g}"},
            )
        return values

    @property
    def change(self) -> float:
        """`min_change` as a fraction (its default for the trend's shape)."""
        if self.min_change is not None:
            return self.min_change / 100
        return DEFAULT_MIN_CHANGE[self.trend or "saturates"] / 100

    def selectors(self) -> list[tuple[str, Selector]]:
        """(field name, selector) of every cell selection the claim makes."""
        found = [("cells", self.cells)]
        if self.against is not None:
            found.append(("against", self.against))
        if self.member is not None:
            found.append(("member", {**self.cells, "mix": self.member}))
        return found


def level_text(value: Any) -> str:
    """A factor level as compared with a selector (YAML `null` names the null target)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def selects(selector: Mapping[str, Any], levels: Mapping[str, Any]) -> bool:
    """Whether a cell with factor `levels` has every level `selector` names."""
    return all(
        key in levels and level_text(levels[key]) == level_text(value)
        for key, value in selector.items()
    )


def _factor_allowed(key: str) -> bool:
    return key in FACTOR_NAMES or key.startswith("properties.")


def finding_problems(
    findings: list[FindingSpec], defined: Mapping[str, list[str]]
) -> list[SpecError]:
    """Problems of the spec's `findings` against the rest of it.

    `defined` maps a factor whose levels are names (backend, mix, io_controls) to every
    name the spec defines — not only the levels the profile runs, so a claim whose cells
    a profile leaves out stays valid (it is "not tested by this profile").
    """
    problems: list[SpecError] = []
    seen: set[str] = set()
    allowed_factors = ", ".join([*FACTOR_NAMES[:-1], "properties.<key>"])
    for i, finding in enumerate(findings):
        where = f"findings[{i}]"
        if finding.id in seen:
            problems.append(SpecError(f"{where}.id", f"{finding.id!r} is listed twice"))
        seen.add(finding.id)
        for field, selector in finding.selectors():
            if field == "member":
                continue  # `cells` with the member's mix: both checked on their own
            for key, value in selector.items():
                path = f"{where}.{field}.{key}"
                if not _factor_allowed(key) or key == "properties":
                    problems.append(SpecError(path, f"not a factor; allowed: {allowed_factors}"))
                elif key in defined and level_text(value) not in defined[key]:
                    names = defined[key]
                    problems.append(
                        SpecError(
                            path,
                            f"{value!r} is not defined; allowed: {', '.join(names) or '(none)'}",
                        )
                    )
                elif key == "target" and level_text(value) not in {*TARGETS, *DATABASE_BINDINGS}:
                    problems.append(
                        SpecError(
                            path,
                            f"{value!r} is not a known target; allowed: {', '.join(target_names())}",
                        )
                    )
        mixes = defined.get("mix")
        if finding.member is not None and mixes is not None and finding.member not in mixes:
            problems.append(
                SpecError(
                    f"{where}.member",
                    f"{finding.member!r} is not a defined mix; allowed: {', '.join(mixes) or '(none)'}",
                )
            )
        problems += _kind_problems(finding, where)
    return problems


def _kind_problems(finding: FindingSpec, where: str) -> list[SpecError]:
    """What each kind needs, and what it does not take."""
    kind = finding.kind
    needs: list[str] = []
    refuses: list[str] = []
    if kind != "degradation":
        refuses += ["member", "at_most"]
    if kind in KINDS_WITH_AGAINST:
        needs += ["against"]
        refuses += ["shares", "trend", "at", "min_change"]
        if kind == "equivalent":
            needs.append("margin")
            refuses.append("by")
        else:
            refuses.append("margin")
    elif kind == "share":
        needs += ["shares", "margin"]
        refuses += ["against", "trend", "at", "min_change", "by"]
    elif kind == "degradation":
        needs.append("member")
        refuses += ["against", "shares", "margin", "trend", "at", "min_change"]
    elif kind == "below_limit":
        refuses += ["against", "shares", "margin", "trend", "at", "min_change"]
    elif kind == "at_limit":
        needs.append("margin")
        refuses += ["against", "shares", "trend", "at", "min_change", "by"]
    else:
        needs.append("trend")
        refuses += ["against", "shares", "margin", "by"]
    problems = [
        SpecError(f"{where}.{name}", f"kind {kind!r} needs {name!r}")
        for name in needs
        if getattr(finding, name) is None
    ]
    defaults = {"by": 0.0}
    problems += [
        SpecError(f"{where}.{name}", f"kind {kind!r} takes no {name!r}")
        for name in refuses
        if getattr(finding, name) not in (None, defaults.get(name))
    ]
    if kind == "trend":
        if not _factor_allowed(finding.over) or finding.over == "properties":
            problems.append(
                SpecError(f"{where}.over", f"{finding.over!r} is not a factor with levels")
            )
        elif finding.over in finding.cells:
            problems.append(
                SpecError(
                    f"{where}.cells.{finding.over}",
                    f"the trend runs over {finding.over!r}: select its cells by other factors",
                )
            )
    if kind == "degradation" and finding.at_most is not None and finding.at_most <= finding.by:
        problems.append(SpecError(f"{where}.at_most", f"must be above `by` ({finding.by:g} %)"))
    if kind == "degradation" and "mix" not in finding.cells:
        problems.append(SpecError(f"{where}.cells", "kind 'degradation' selects cells by `mix`"))
    against = finding.against
    if (
        kind in KINDS_WITH_AGAINST
        and against is not None
        and _same_selection(finding.cells, against)
    ):
        problems.append(
            SpecError(
                f"{where}.against", "selects the same cells as `cells`; name a level that differs"
            )
        )
    return problems


def _same_selection(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return {k: level_text(v) for k, v in a.items()} == {k: level_text(v) for k, v in b.items()}


def defined_levels(
    backends: list[str], mixes: list[str], io_controls: list[str]
) -> dict[str, list[str]]:
    """The names a selector may give each named factor (`finding_problems`' `defined`)."""
    return {"backend": backends, "mix": mixes, "io_controls": [NO_CONTROLS, *io_controls]}
