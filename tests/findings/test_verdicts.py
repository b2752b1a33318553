"""Verdicts on claims from small synthetic cells: every kind and every outcome."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest

from contio.experiment.findings import FindingSpec
from contio.findings.cell_data import CellData, cell_data
from contio.findings.evidence import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_TESTED,
    NOT_VALID,
    REPRODUCED,
)
from contio.findings.validity_check import ValidityCheck
from contio.findings.verdicts import evaluate


def cell(levels: dict, totals: list[float], per_container=None, status="done", reason="",
         targets=None) -> CellData:  # fmt: skip
    key = json.dumps(levels, sort_keys=True)
    return CellData(
        key=key, index=0, label=key, levels=levels, status=status, reason=reason,
        targets=tuple(targets if targets is not None else [levels.get("target", "lsm")]),
        metric="ops_per_sec", repetitions=tuple(range(1, len(totals) + 1)), totals=tuple(totals),
        per_container=tuple(per_container or [(t,) for t in totals]),
    )  # fmt: skip


def claim(**fields) -> FindingSpec:
    return FindingSpec.model_validate({"id": "c", "claim": "A claim.", **fields})


FAST = [100.0, 102.0, 98.0, 101.0, 99.0]
SLOW = [50.0, 52.0, 48.0, 51.0, 49.0]
NOISY = [60.0, 140.0, 90.0]


def two(a: list[float], b: list[float], target="lsm") -> list[CellData]:
    return [
        cell({"backend": "a", "target": target, "threads": 1}, a),
        cell({"backend": "b", "target": target, "threads": 1}, b),
    ]


@pytest.mark.parametrize(
    ("kind", "a", "b", "outcome"),
    [
        ("greater", FAST, SLOW, REPRODUCED),
        ("greater", SLOW, FAST, CONTRADICTED),
        ("less", SLOW, FAST, REPRODUCED),
        ("less", FAST, SLOW, CONTRADICTED),
        ("greater", NOISY, FAST, INCONCLUSIVE),
    ],
)
def test_greater_and_less(kind, a, b, outcome):
    found = evaluate(claim(kind=kind, cells={"backend": "a"}, against={"backend": "b"}), two(a, b))
    assert found.outcome == outcome
    numbers = found.evidence[0].numbers
    assert numbers["mean"] == pytest.approx(sum(a) / len(a))
    assert {"ci_low_pct", "ci_high_pct", "p", "difference_pct"} <= set(numbers)


def test_greater_by_a_margin_it_does_not_reach_is_contradicted():
    spec = claim(kind="greater", by=150, cells={"backend": "a"}, against={"backend": "b"})
    assert evaluate(spec, two(FAST, SLOW)).outcome == CONTRADICTED  # +100 %, not +150 %
    spec = claim(kind="greater", by=50, cells={"backend": "a"}, against={"backend": "b"})
    assert evaluate(spec, two(FAST, SLOW)).outcome == REPRODUCED


def test_an_inconclusive_verdict_says_the_width_and_repetitions_that_would_decide():
    found = evaluate(
        claim(kind="greater", cells={"backend": "a"}, against={"backend": "b"}), two(NOISY, FAST)
    )
    assert found.outcome == INCONCLUSIVE
    assert found.to_decide is not None and found.to_decide.repetitions is not None
    assert found.to_decide.repetitions > 5
    assert "repetitions per cell" in found.summary


def test_paired_uses_matched_repetitions():
    # Each pair differs by +1 % with the machine's drift shared: only pairing shows it.
    b = [100.0, 200.0, 150.0, 120.0]
    a = [v * 1.01 for v in b]
    spec = claim(kind="greater", cells={"backend": "a"}, against={"backend": "b"})
    assert evaluate(spec, two(a, b), paired=False).outcome == INCONCLUSIVE
    found = evaluate(spec, two(a, b), paired=True)
    assert found.outcome == REPRODUCED
    assert found.evidence[0].numbers["method"] == "fieller-paired"


@pytest.mark.parametrize(
    ("a", "margin", "outcome"),
    [
        ([100.0, 101.0, 99.0, 100.5, 99.5], 5, REPRODUCED),
        (SLOW, 10, CONTRADICTED),
        (NOISY, 10, INCONCLUSIVE),
    ],
)
def test_equivalent_by_tost(a, margin, outcome):
    spec = claim(kind="equivalent", margin=margin, cells={"backend": "a"}, against={"backend": "b"})
    found = evaluate(spec, two(a, [100.0, 100.5, 99.5, 100.2, 99.8]))
    assert found.outcome == outcome
    assert found.evidence[0].numbers["margin_pct"] == margin


def test_every_pair_must_reproduce_and_any_contradiction_counts():
    cells = [
        *two(FAST, SLOW),
        cell({"backend": "a", "target": "lsm", "threads": 8}, SLOW),
        cell({"backend": "b", "target": "lsm", "threads": 8}, FAST),
    ]
    found = evaluate(claim(kind="greater", cells={"backend": "a"}, against={"backend": "b"}), cells)
    assert found.outcome == CONTRADICTED
    assert len(found.evidence) == 2
    assert {e.label for e in found.evidence} == {"target=lsm · threads=1", "target=lsm · threads=8"}


SHARES = [(50.0, 25.0, 25.0), (51.0, 24.0, 25.0), (49.0, 26.0, 25.0), (50.5, 24.5, 25.0)]
EVEN = [(34.0, 33.0, 33.0), (33.0, 34.0, 33.0), (33.5, 33.0, 33.5), (34.0, 33.5, 32.5)]


@pytest.mark.parametrize(("measured", "outcome"), [(SHARES, REPRODUCED), (EVEN, CONTRADICTED)])
def test_shares_within_a_margin(measured, outcome):
    cells = [cell({"io_controls": "w"}, [sum(r) for r in measured], measured)]
    spec = claim(kind="share", cells={"io_controls": "w"}, shares=[50, 25, 25], margin=5)
    found = evaluate(spec, cells)
    assert found.outcome == outcome
    assert found.evidence[0].numbers["share1_target_pct"] == 50


def test_a_share_claim_on_a_cell_with_other_containers_is_not_tested():
    cells = [cell({"io_controls": "w"}, [100.0, 100.0], [(50.0, 50.0), (50.0, 50.0)])]
    spec = claim(kind="share", cells={"io_controls": "w"}, shares=[50, 25, 25], margin=5)
    found = evaluate(spec, cells)
    assert found.outcome == NOT_TESTED
    assert "2 containers" in found.summary


def series(means: list[float], spread: float = 0.01) -> list[CellData]:
    return [
        cell({"mix": "read", "containers": n}, [m * (1 - spread), m, m * (1 + spread)])
        for n, m in zip([1, 2, 3, 4, 5, 6], means, strict=False)
    ]


@pytest.mark.parametrize(
    ("shape", "means", "outcome"),
    [
        ("grows", [100, 150, 200], REPRODUCED),
        ("grows", [200, 150, 100], CONTRADICTED),
        ("saturates", [100, 200, 300, 300, 300], REPRODUCED),
        ("saturates", [100, 200, 300, 400], CONTRADICTED),
        ("valley", [300, 300, 300, 150, 250, 300], REPRODUCED),
        ("valley", [100, 150, 200, 250], CONTRADICTED),
    ],
)
def test_trends(shape, means, outcome):
    spec = claim(kind="trend", trend=shape, cells={"mix": "read"}, at=4)
    found = evaluate(spec, series(means))
    assert found.outcome == outcome, found.summary
    assert found.evidence[0].label == "mix=read over containers"


def test_an_undecided_growth_needs_the_estimates_distance_from_the_threshold():
    spec = claim(kind="trend", trend="grows", cells={"mix": "read"})
    found = evaluate(spec, series([100, 105], spread=0.1))
    assert found.outcome == INCONCLUSIVE, found.summary
    assert found.to_decide is not None
    assert found.to_decide.half_width == pytest.approx(5.0)
    # s.d. of one repetition's difference: √(10.5² + 10²) / 100; 80 % power at α 0.05
    assert found.to_decide.repetitions == 52  # (2.49 · 0.145 / 0.05)², rounded up


def test_a_valley_that_falls_and_does_not_climb_again_is_contradicted():
    spec = claim(kind="trend", trend="valley", cells={"mix": "read"}, at=4)
    found = evaluate(spec, series([300, 300, 150, 150, 150, 155]))
    assert found.outcome == CONTRADICTED, found.summary
    assert "does not climb again" in found.evidence[0].text
    assert found.evidence[0].numbers["bottom_level"] == 3


def test_a_fall_with_an_unclear_climb_after_it_stays_inconclusive():
    spec = claim(kind="trend", trend="valley", cells={"mix": "read"}, at=4)
    climb = cell({"mix": "read", "containers": 5}, [120.0, 165.0, 210.0])
    cells = [*series([300, 150, 150, 150]), climb]
    found = evaluate(spec, cells)
    assert found.outcome == INCONCLUSIVE, found.summary
    assert "neither shown nor excluded" in found.evidence[0].text
    assert found.to_decide is not None and found.to_decide.repetitions


def test_a_fall_to_the_largest_level_cannot_be_decided_by_repetitions():
    spec = claim(kind="trend", trend="valley", cells={"mix": "read"}, at=4)
    found = evaluate(spec, series([300, 300, 300, 150]))
    assert found.outcome == INCONCLUSIVE, found.summary
    assert "cannot decide" in found.evidence[0].text
    assert found.to_decide is None


def test_an_undecided_valley_that_ends_at_the_papers_level_says_so():
    spec = claim(kind="trend", trend="valley", cells={"mix": "read"}, at=4)
    found = evaluate(spec, series([300, 300, 280, 300], spread=0.2))
    assert found.outcome == INCONCLUSIVE, found.summary
    assert "no level beyond the paper's 4" in found.evidence[0].text
    longer = evaluate(spec, series([300, 300, 280, 300, 290], spread=0.2))
    assert "beyond" not in longer.evidence[0].text


def test_an_undecided_trend_says_what_would_decide():
    spec = claim(kind="trend", trend="valley", cells={"mix": "read"})
    found = evaluate(spec, series([300, 300, 280, 300], spread=0.2))
    assert found.outcome == INCONCLUSIVE
    assert found.to_decide is not None and found.to_decide.repetitions


def test_a_failed_validity_check_makes_it_not_valid_here_and_none_keeps_it():
    cells = two(FAST, SLOW)
    spec = claim(kind="greater", cells={"backend": "a"}, against={"backend": "b"})
    cpu = ValidityCheck("cpu-saturated", cells[0].key, False, "host CPU at 99 %", {"cpu": 99.0})
    found = evaluate(spec, cells, [cpu])
    assert found.outcome == NOT_VALID
    assert found.not_valid == ("cpu-saturated: host CPU at 99 %",)
    assert "measured: reproduced" in found.summary
    unsure = ValidityCheck("data-in-cache", None, None, "no disk counters were sampled")
    other = ValidityCheck("cpu-saturated", "another cell", False, "not this claim's cell")
    found = evaluate(spec, cells, [unsure, other])
    assert found.outcome == REPRODUCED
    assert found.cannot_tell == ("data-in-cache: no disk counters were sampled",)
    assert "contio cannot tell" in found.summary


def test_a_check_that_is_the_claims_mechanism_does_not_invalidate_it():
    cells = series([100, 200, 300, 300, 300])
    # Saturated from the third level on: the series shows the growth stopping there.
    busy = [ValidityCheck("cpu-saturated", c.key, False, "host CPU 99 %") for c in cells[2:]]
    cache = ValidityCheck("data-in-cache", cells[0].key, False, "the disk sat idle")
    saturates = {"kind": "trend", "trend": "saturates", "cells": {"mix": "read"}}
    assert evaluate(claim(**saturates), cells, busy).outcome == NOT_VALID
    found = evaluate(claim(**saturates, mechanism=["cpu-saturated"]), cells, busy)
    assert found.outcome == REPRODUCED and found.not_valid == ()
    assert "cpu-saturated failed, as the claim's mechanism expects" in found.summary
    # Only the named check: another failure still says the cells measured something else.
    found = evaluate(claim(**saturates, mechanism=["cpu-saturated"]), cells, [*busy, cache])
    assert found.outcome == NOT_VALID and found.not_valid == ("data-in-cache: the disk sat idle",)


def test_a_mechanism_in_force_from_the_smallest_level_cannot_show_it_setting_in():
    cells = series([300, 290, 300, 295, 300])
    busy = [ValidityCheck("cpu-saturated", c.key, False, "host CPU 94 %") for c in cells]
    saturates = {"kind": "trend", "trend": "saturates", "cells": {"mix": "read"}}
    found = evaluate(claim(**saturates, mechanism=["cpu-saturated"]), cells, busy)
    assert found.outcome == NOT_VALID, found.summary
    [reason] = found.not_valid
    assert "at every level, containers = 1 included (host CPU 94 %)" in reason
    # One level short of it is enough for the series to show where it sets in.
    found = evaluate(claim(**saturates, mechanism=["cpu-saturated"]), cells, busy[1:])
    assert found.outcome != NOT_VALID and found.not_valid == ()


def test_a_mechanism_must_name_validity_checks():
    with pytest.raises(ValueError, match=r"cpu-busy: not validity checks; allowed: cpu-saturated"):
        claim(kind="trend", trend="saturates", cells={"mix": "read"}, mechanism=["cpu-busy"])


def test_cell_order_confounded_with_a_factor_invalidates_only_claims_comparing_it():
    cells = two(FAST, SLOW)
    spec = claim(kind="greater", cells={"backend": "a"}, against={"backend": "b"})
    order = "backend a always ran just before backend b"
    on_backend = ValidityCheck("order-confounded", None, False, order, factor="backend")
    on_threads = ValidityCheck("order-confounded", None, False, "threads", factor="threads")
    assert evaluate(spec, cells, [on_threads]).outcome == REPRODUCED
    found = evaluate(spec, cells, [on_threads, on_backend])
    assert found.outcome == NOT_VALID
    assert found.not_valid == (f"order-confounded: {order}",)


def test_a_stand_in_is_said_out_loud():
    spec = claim(kind="greater", system="MongoDB", cells={"backend": "a"}, against={"backend": "b"})
    found = evaluate(spec, two(FAST, SLOW, target="ferretdb"))
    assert found.outcome == REPRODUCED
    assert found.subject == "ferretdb, standing in for MongoDB"
    assert "not MongoDB itself" in found.summary
    (standing,) = found.stand_ins
    assert "SQLite" in standing.can_show and "WiredTiger" in standing.cannot_show
    assert "the verdict is about ferretdb, not MongoDB" in standing.sentence()
    real = evaluate(spec, two(FAST, SLOW, target="mongodb"))
    assert real.stand_ins == () and real.subject == "MongoDB"


def test_cells_the_profile_lacks_or_skipped_are_not_tested_with_the_reason():
    spec = claim(kind="greater", cells={"backend": "nfs"}, against={"backend": "b"})
    found = evaluate(spec, two(FAST, SLOW))
    assert found.outcome == NOT_TESTED
    assert "not tested by this profile: no cell has backend=nfs" in found.summary
    skipped = [
        cell({"backend": "nfs", "threads": 1}, [], status="skipped",
             reason="backend unavailable: the kernel has no NFS server"),
        cell({"backend": "b", "threads": 1}, SLOW),
    ]  # fmt: skip
    found = evaluate(spec, skipped)
    assert found.outcome == NOT_TESTED
    assert "the kernel has no NFS server" in found.summary


def test_cell_data_sums_containers_per_complete_repetition():
    levels = {"backend": "a", "mix": "m", "containers": 2}
    cells = [{"cell_key": "k", "cell_index": 0, "label": "l", "levels": levels,
              "members": 2, "status": "done", "reason": None}]  # fmt: skip
    rows = [
        {"cell_key": "k", "status": "ok", "repetition": r, "container": c,
         "steady_ops_per_sec": 10.0 * r + c, "iops": None}
        for r in (1, 2, 3) for c in (0, 1) if (r, c) != (3, 1)
    ]  # fmt: skip
    spec = {"mixes": {"m": [{"workload": "workloada", "target": "ferretdb"}]}}
    (found,) = cell_data(pd.DataFrame(rows), cells, spec)
    assert found.repetitions == (1, 2)
    assert found.totals == (21.0, 41.0)
    assert found.per_container == ((10.0, 11.0), (20.0, 21.0))
    assert found.targets == ("ferretdb",)
    assert found.metric == "ops_per_sec"


def mix_cells(mysql_alone, mysql_mixed, cassandra_alone, cassandra_mixed) -> list[CellData]:
    """A mysql+cassandra mix cell (one container each) and both standalone cells."""

    def one(mix, apps, per):
        found = cell({"mix": mix, "containers": 1}, [sum(r) for r in per], per)
        return replace(found, applications=apps, ops_per_container=tuple(per))

    return [
        one("mysql", ("workloada on btree",), [(v,) for v in mysql_alone]),
        one("cassandra", ("heavy-update on lsm",), [(v,) for v in cassandra_alone]),
        one("mysql+cassandra", ("workloada on btree", "heavy-update on lsm"),
            list(zip(mysql_mixed, cassandra_mixed, strict=True))),
    ]  # fmt: skip


PAPER_MIX = mix_cells(
    [18.0, 18.5, 17.5, 18.2],
    [9.0, 9.3, 8.8, 9.1],  # MySQL: about 50 % lost
    [60.0, 61.0, 59.0, 60.5],
    [50.0, 50.8, 49.5, 50.2],  # Cassandra: about 16 %
)


@pytest.mark.parametrize(
    ("member", "by", "at_most", "outcome"),
    [
        ("mysql", 30, None, REPRODUCED),  # loses ≥ 30 %
        ("mysql", 30, 70, REPRODUCED),  # loses 30–70 %
        ("mysql", 70, None, CONTRADICTED),  # does not lose 70 %
        ("cassandra", 5, 25, REPRODUCED),  # loses 5–25 %
        ("cassandra", 0, 10, CONTRADICTED),  # loses more than 10 %
    ],
)
def test_degradation_against_standalone(member, by, at_most, outcome):
    fields = {"member": member, "by": by} | ({"at_most": at_most} if at_most else {})
    spec = claim(kind="degradation", cells={"mix": "mysql+cassandra"}, **fields)
    found = evaluate(spec, PAPER_MIX)
    assert found.outcome == outcome, found.summary
    numbers = found.evidence[0].numbers
    expected = 50.0 if member == "mysql" else 16.5
    assert numbers["degradation_pct"] == pytest.approx(expected, abs=1.5)
    assert (
        numbers["degradation_low_pct"]
        < numbers["degradation_pct"]
        < numbers["degradation_high_pct"]
    )


def test_a_degradation_names_only_its_members_stand_in_not_the_partners():
    targets = {"mysql": ["mariadb"], "cassandra": ["lsm"], "mysql+cassandra": ["mariadb", "lsm"]}
    cells = [replace(c, targets=tuple(targets[c.levels["mix"]])) for c in PAPER_MIX]
    spec = claim(
        kind="degradation", cells={"mix": "mysql+cassandra"}, member="cassandra", by=5,
        system="Cassandra",
    )  # fmt: skip
    assert [s.target for s in evaluate(spec, cells).stand_ins] == ["lsm"]


def test_degradation_without_a_standalone_cell_is_not_tested():
    spec = claim(kind="degradation", cells={"mix": "mysql+cassandra"}, member="mysql")
    found = evaluate(spec, [c for c in PAPER_MIX if c.levels["mix"] != "mysql"])
    assert found.outcome == NOT_TESTED
    assert "mix=mysql" in found.summary


def throttled(uses: list[float]) -> list[CellData]:
    """A 4-container cell whose first container is throttled and achieved `uses` of it."""
    found = cell({"io_controls": "throttle-40", "containers": 4}, [100.0] * len(uses),
                 [(25.0,) * 4] * len(uses))  # fmt: skip
    return [replace(found, limit_use=tuple((u, None, None, None) for u in uses))]


@pytest.mark.parametrize(
    ("kind", "uses", "outcome"),
    [
        ("below_limit", [0.52, 0.50, 0.55, 0.51], REPRODUCED),  # paper 004: 20.7 of 40 MB/s
        ("below_limit", [0.99, 1.0, 0.98, 1.01], CONTRADICTED),
        ("at_limit", [0.99, 1.0, 0.98, 1.01], REPRODUCED),
        ("at_limit", [0.52, 0.50, 0.55, 0.51], CONTRADICTED),
        ("below_limit", [0.6, 1.0, 0.8], INCONCLUSIVE),
    ],
)
def test_achieved_against_the_limit(kind, uses, outcome):
    fields = {"by": 10} if kind == "below_limit" else {"margin": 10}
    spec = claim(kind=kind, cells={"io_controls": "throttle-40"}, **fields)
    found = evaluate(spec, throttled(uses))
    assert found.outcome == outcome, found.summary
    (evidence,) = found.evidence  # one test: only the throttled container
    assert evidence.label.endswith("container 1")
    assert evidence.numbers["achieved_pct_of_limit"] == pytest.approx(100 * sum(uses) / len(uses))


def test_a_limit_claim_on_cells_without_throttles_is_not_tested():
    found = evaluate(claim(kind="below_limit", cells={"backend": "a"}), two(FAST, SLOW))
    assert found.outcome == NOT_TESTED
    assert "throttle" in found.summary


def test_cell_data_reads_members_and_the_achieved_share_of_the_limit():
    levels = {"io_controls": "t", "containers": 2}
    cells = [{"cell_key": "k", "cell_index": 0, "label": "l", "levels": levels,
              "members": 2, "status": "done", "reason": None}]  # fmt: skip
    limit = json.dumps({"limits": {"read_bps": 40_000_000, "write_bps": 40_000_000}})
    rows = [
        {"cell_key": "k", "status": "ok", "repetition": r, "container": c, "workload": "write",
         "target": None, "steady_ops_per_sec": 5.0, "iops": 5.0, "read_mib_per_sec": 0.0,
         "written_mib_per_sec": 20_000_000 / (1 << 20), "io_control": limit if c == 1 else "{}"}
        for r in (1, 2) for c in (1, 2)
    ]  # fmt: skip
    (found,) = cell_data(pd.DataFrame(rows), cells, {})
    assert found.applications == ("write", "write")
    assert found.limit_use == ((0.5, None), (0.5, None))
    assert found.ops_per_container == ((5.0, 5.0), (5.0, 5.0))
