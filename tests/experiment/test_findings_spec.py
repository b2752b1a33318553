"""`findings:` in a spec: claims validated with errors naming the field and what is allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text

BASE = """name: t
backends: {a: {type: local-dir}, b: {type: local-dir}}
factors: {backend: [a, b], workload: [workloada]}
findings:
"""


def problems(findings: str) -> list[str]:
    with pytest.raises(InvalidSpecError) as caught:
        parse_spec_text(BASE + findings, "t.yaml", Path.cwd())
    return [str(p) for p in caught.value.problems]


def test_a_valid_claim_reads_with_its_defaults():
    spec = parse_spec_text(
        BASE + "  - {id: x, paper: 000, claim: A beats B., kind: greater, "
        "cells: {backend: a}, against: {backend: b}}\n",
        "t.yaml", Path.cwd(),
    )  # fmt: skip
    (claim,) = spec.findings
    assert claim.paper == "000"  # YAML's integer 0 gets its digits back
    assert (claim.alpha, claim.metric, claim.by) == (0.05, "auto", 0.0)


def test_bad_fields_name_their_path_and_the_allowed_values():
    found = problems(
        "  - {id: x, claim: c, kind: bigger, cells: {backend: a}}\n"
        "  - {id: y, claim: c, kind: equivalent, metric: foo, cells: {backend: a}, against: {backend: b}}\n"
        "  - {id: z, claim: c, kind: share, cells: {backend: a}, shares: [50, 20], margin: 5, typo: 1}\n"
    )  # fmt: skip
    assert any(
        p.startswith("findings[0].kind: 'bigger' is not allowed; allowed: greater") for p in found
    )
    assert any(
        p.startswith("findings[1].metric: 'foo' is not allowed; allowed: auto") for p in found
    )
    assert (
        "findings[2].shares: shares are percents of the cell's total and add up to 100, not 70"
        in found
    )
    assert any(
        p.startswith("findings[2].typo: unknown key; allowed keys here: id, claim") for p in found
    )


def test_cross_checks_name_levels_factors_and_what_each_kind_needs():
    found = problems(
        "  - {id: x, claim: c, kind: greater, cells: {backend: c}, against: {bakend: a}}\n"
        "  - {id: x, claim: c, kind: equivalent, cells: {backend: a}, against: {backend: b}}\n"
        "  - {id: s, claim: c, kind: share, cells: {backend: a}, shares: [100], against: {backend: b}}\n"
        "  - {id: t, claim: c, kind: trend, cells: {containers: 2}}\n"
    )  # fmt: skip
    assert found == [
        "findings[0].cells.backend: 'c' is not defined; allowed: a, b",
        (
            "findings[0].against.bakend: not a factor; allowed: backend, target, workload, threads, "
            "containers, mix, runtime, io_controls, properties.<key>"
        ),
        "findings[1].id: 'x' is listed twice",
        "findings[1].margin: kind 'equivalent' needs 'margin'",
        "findings[2].margin: kind 'share' needs 'margin'",
        "findings[2].against: kind 'share' takes no 'against'",
        "findings[3].trend: kind 'trend' needs 'trend'",
        (
            "findings[3].cells.containers: the trend runs over 'containers': select its cells by "
            "other factors"
        ),
    ]


MIXES = """name: t
backends: {a: {type: local-dir}}
mixes:
  m: [{workload: workloada, target: btree}]
  c: [{workload: workloadc, target: lsm}]
  m+c: [{workload: workloada, target: btree}, {workload: workloadc, target: lsm}]
factors: {backend: [a], mix: [m, c, m+c]}
findings:
"""


def test_degradation_and_limit_claims_name_what_they_need():
    with pytest.raises(InvalidSpecError) as caught:
        parse_spec_text(
            MIXES
            + "  - {id: a, claim: c, kind: degradation, cells: {mix: m+c}, member: x}\n"
            "  - {id: b, claim: c, kind: degradation, cells: {mix: m+c}, member: m, by: 30, at_most: 20}\n"
            "  - {id: d, claim: c, kind: degradation, cells: {backend: a}}\n"
            "  - {id: e, claim: c, kind: at_limit, cells: {backend: a}, member: m}\n"
            "  - {id: f, claim: c, kind: below_limit, cells: {backend: a}, margin: 5}\n",
            "t.yaml", Path.cwd(),
        )  # fmt: skip
    assert [str(p) for p in caught.value.problems] == [
        "findings[0].member: 'x' is not a defined mix; allowed: m, c, m+c",
        "findings[1].at_most: must be above `by` (30 %)",
        "findings[2].member: kind 'degradation' needs 'member'",
        "findings[2].cells: kind 'degradation' selects cells by `mix`",
        "findings[3].margin: kind 'at_limit' needs 'margin'",
        "findings[3].member: kind 'at_limit' takes no 'member'",
        "findings[4].margin: kind 'below_limit' takes no 'margin'",
    ]


def test_a_valid_degradation_claim_selects_its_standalone_cells():
    spec = parse_spec_text(
        MIXES + "  - {id: a, claim: c, kind: degradation, cells: {mix: m+c}, member: m, by: 25}\n",
        "t.yaml", Path.cwd(),
    )  # fmt: skip
    (claim,) = spec.findings
    assert claim.selectors()[-1] == ("member", {"mix": "m"})
