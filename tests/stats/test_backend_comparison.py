"""Backend levels against a baseline: pairing by repetition number, the named baseline."""

from __future__ import annotations

import pytest
from scipy import stats as scipy_stats

from contio.stats.backend_comparison import Analysis, ComparedCell, compare_backends

LOCAL = {1: 1000.0, 2: 940.0, 3: 1060.0, 4: 990.0}
NFS = {1: 880.0, 2: 830.0, 3: 950.0}  # an adaptive cell that stopped one repetition earlier


def cells(**backends: dict[int, float]) -> list[ComparedCell]:
    return [ComparedCell({"backend": name, "threads": 1}, s) for name, s in backends.items()]


def test_paired_matches_repetitions_by_number_and_leaves_out_the_unmatched():
    [item] = compare_backends(cells(local=LOCAL, nfs=NFS), Analysis("paired", None))
    assert (item.test.kind, item.test.n_a) == ("paired", 3)
    expected = scipy_stats.ttest_rel([880.0, 830.0, 950.0], [1000.0, 940.0, 1060.0])
    assert item.test.t == pytest.approx(expected.statistic)
    assert item.relative.p == pytest.approx(expected.pvalue)
    assert item.relative.baseline == "local" and item.group == {}


def test_welch_takes_every_repetition_of_each_side():
    [item] = compare_backends(cells(local=LOCAL, nfs=NFS), Analysis("welch", None))
    assert (item.test.kind, item.test.n_a, item.test.n_b) == ("welch", 3, 4)
    expected = scipy_stats.ttest_ind(list(NFS.values()), list(LOCAL.values()), equal_var=False)
    assert item.test.p == pytest.approx(expected.pvalue)


def test_the_named_baseline_and_groups_without_it():
    found = compare_backends(cells(local=LOCAL, nfs=NFS), Analysis("welch", "nfs"))
    assert [(c.relative.level, c.relative.baseline) for c in found] == [("local", "nfs")]
    assert compare_backends(cells(local=LOCAL, nfs=NFS), Analysis("welch", "sync")) == []


def test_groups_are_split_by_the_other_varying_factors():
    grouped = [
        ComparedCell({"backend": b, "threads": t}, s)
        for t in (1, 8)
        for b, s in (("local", LOCAL), ("nfs", NFS))
    ]
    found = compare_backends(grouped, Analysis())
    assert [c.group for c in found] == [{"threads": 1}, {"threads": 8}]


def test_one_pair_gives_the_estimate_without_a_test():
    [item] = compare_backends(cells(local={1: 10.0, 2: 11.0}, nfs={2: 9.0}), Analysis("paired"))
    assert item.test is None and item.relative.estimate == pytest.approx(9.0 / 11.0 - 1)
