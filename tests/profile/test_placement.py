"""`contio advise`'s search: the best placement for each objective, against the naive
round-robin one, explained; more placements than the search evaluates are refused."""

from __future__ import annotations

import pytest
from profiles import profile

from contio.errors import UsageError
from contio.profile.placement import (
    MAX_PLACEMENTS,
    Member,
    advise,
    evaluate,
    host_of,
    naive_placement,
)


def _unfair_mix() -> list[Member]:
    """Paper 003's unfair mix: two sequential writers and two random readers."""
    writer = profile("writer", 55.0, sequential=True)
    reader = profile("reader", 55.0)
    return [Member("w1", writer), Member("w2", writer), Member("r1", reader), Member("r2", reader)]


def test_the_unfair_mix_is_placed_like_with_like_and_beats_round_robin():
    members = _unfair_mix()
    advice = advise(members, ["d1", "d2"], "fairness", cores=8)
    best, naive = advice.best, advice.naive
    assert advice.searched == 16
    assert naive.placement == {"w1": "d1", "w2": "d2", "r1": "d1", "r2": "d2"}
    # Writers together and readers together: no sequential-beside-random penalty.
    assert best.placement["w1"] == best.placement["w2"] != best.placement["r1"]
    assert best.placement["r1"] == best.placement["r2"]
    assert best.worst > naive.worst
    assert any("kept w1 apart from r" in reason for reason in advice.reasons)


def test_each_objective_scores_what_it_says():
    light, heavy = profile("light", 20.0), profile("heavy", 90.0)
    members = [Member("h1", heavy, weight=3.0), Member("h2", heavy), Member("l", light)]
    for objective in ("throughput", "fairness", "weighted"):
        advice = advise(members, ["d1", "d2"], objective, cores=8)
        # The heavy ones never share: together each would get half the device.
        assert advice.best.placement["h1"] != advice.best.placement["h2"]
    weighted = advise(members, ["d1", "d2"], "weighted", cores=8)
    # The light one goes beside the member of weight 1.
    assert weighted.best.placement["l"] == weighted.best.placement["h2"]


def test_evaluation_of_one_place_shares_the_cpu_and_the_device():
    members = [
        Member("a", profile("a", 10.0, cores=1.5)),
        Member("b", profile("b", 10.0, cores=1.5)),
    ]
    apart = evaluate(members, {"a": "d1", "b": "d2"}, cores=2)
    assert apart.worst == pytest.approx(2 / 3)  # two cores for three needed, wherever
    assert {p.bottleneck for p in apart.predictions.values()} == {"cpu"}
    assert naive_placement(members, ["d1"]) == {"a": "d1", "b": "d1"}


def test_members_on_other_hosts_share_only_their_hosts_cpus():
    members = [
        Member("a", profile("a", 10.0, cores=1.5)),
        Member("b", profile("b", 10.0, cores=1.5)),
    ]
    apart = evaluate(members, {"a": "n1:sdb", "b": "n2:sdb"}, cores=2)
    assert apart.worst == pytest.approx(1.0)  # one and a half cores of two, each
    together = evaluate(members, {"a": "n1:sdb", "b": "n1:sdc"}, cores=2)
    assert together.worst == pytest.approx(2 / 3)
    found = advise(members, ["n1:sdb", "n2:sdb"], "fairness", cores=2)
    assert host_of(found.best.placement["a"]) != host_of(found.best.placement["b"])
    assert (host_of("n2:sdb"), host_of("sdb")) == ("n2", "")


def test_too_many_placements_or_a_bad_objective_are_refused():
    many = [Member(f"m{k}", profile("x", 10.0)) for k in range(18)]
    with pytest.raises(UsageError, match=f"{MAX_PLACEMENTS:,}"):
        advise(many, ["d1", "d2"], "fairness", cores=2)
    with pytest.raises(UsageError, match="--objective"):
        advise(many[:2], ["d1"], "speed", cores=2)
    with pytest.raises(UsageError, match="--places"):
        advise(many[:2], [], "fairness", cores=2)
