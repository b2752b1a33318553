"""The go-ycsb comparison's table: medians over rounds, goals, ranges (synthetic samples)."""

from pathlib import Path

import pytest
from rich.console import Console

from benchmarks import go_ycsb
from benchmarks.context import BenchContext
from benchmarks.go_ycsb import Cell, comparison_rows
from benchmarks.report import Sample


def _sample(
    tool: str, cell: Cell, ops_s: float, client_us: float, redis_us: float, round_: int = 0
) -> Sample:
    meta = {"client_cpu_us_per_op": client_us, "redis_cpu_us_per_op": redis_us, "round": round_}
    return Sample(tool, cell.case, "ops/s", ops_s, "ops/s", meta)


def test_medians_judge_both_goals_per_cell():
    cell = Cell("workloadc", 1)
    samples = [
        _sample("contio", cell, 9_100, 45, 30, 0),
        _sample("go-ycsb", cell, 11_300, 54, 31, 0),
        _sample("contio", cell, 11_900, 35, 30, 1),
        _sample("go-ycsb", cell, 9_600, 62, 31, 1),
        _sample("contio", cell, 10_000, 40, 30, 2),
        _sample("go-ycsb", cell, 10_500, 60, 31, 2),
    ]
    rows, notes = comparison_rows(samples)
    ops, cpu, redis = rows
    assert (ops.contio, ops.peer, ops.passed) == (10_000, 10_500, False)
    assert (cpu.contio, cpu.peer, cpu.passed) == (40, 60, True)
    assert (redis.contio, redis.peer, redis.goal) == (30, 31, "contio ≤ 1.02 × go-ycsb")
    assert redis.passed is True
    # Paired by round: 9.1/11.3, 11.9/9.6, 10.0/10.5 spread the ops/s ratio both ways.
    low, high = ops.ratio_interval
    assert low < 0.81 and high > 1.24
    assert redis.ratio_interval == pytest.approx((30 / 31, 30 / 31))
    expected = (
        "workloadc threads=1, 3 round(s): contio 9.1–11.9 k vs go-ycsb 9.6–11.3 k ops/s; "
        "client CPU 35–45 vs 54–62 µs/op; Redis CPU 30–30 vs 31–31 µs/op"
    )
    assert notes == [expected]


def test_redis_cpu_above_1_02_times_go_ycsb_misses():
    cell = Cell("workloada", 16)
    samples = [_sample("contio", cell, 60_000, 20, 10.3), _sample("go-ycsb", cell, 50_000, 25, 10)]
    redis = comparison_rows(samples)[0][2]
    assert redis.metric == "redis CPU per op" and redis.passed is False
    samples[0].metadata["redis_cpu_us_per_op"] = 10.2
    assert comparison_rows(samples)[0][2].passed is True


def test_a_cell_only_one_tool_finished_gives_no_rows():
    a16 = Cell("workloada", 16)
    c1 = Cell("workloadc", 1)
    samples = [
        _sample("contio", a16, 60_000, 20, 10),
        _sample("go-ycsb", a16, 20_000, 50, 12),
        _sample("contio", c1, 9_000, 40, 30),
    ]
    rows, _ = comparison_rows(samples)
    assert {row.case for row in rows} == {"workloada threads=16"}
    assert rows[0].ratio == pytest.approx(3.0)


def _props(argv: list[str]) -> dict[str, str]:
    """The -p KEY=VALUE pairs of an argv."""
    pairs = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "-p"]
    return dict(pair.split("=", 1) for pair in pairs)


def test_both_tools_get_the_same_workload_file_and_sizes(monkeypatch, tmp_path):
    monkeypatch.setattr(go_ycsb, "go_ycsb", lambda: Path("/cache/go-ycsb"))
    ctx = BenchContext(engine=tmp_path / "contio-engine", scale=1.0, console=Console())
    clients = go_ycsb.Clients(ctx, "172.18.0.2:6379", 100_000, server=None)
    ours = clients.contio_args("run", "workloadc")
    theirs = clients.go_ycsb_argv("run", "workloadc", {})
    assert ours[ours.index("-P") + 1] == theirs[theirs.index("-P") + 1]
    shared = {"recordcount": "100000", "fieldcount": "10", "fieldlength": "100"}
    assert shared.items() <= _props(ours).items()
    assert shared.items() <= _props(theirs).items()
    assert (_props(ours)["redis.host"], _props(ours)["redis.port"]) == ("172.18.0.2", "6379")
    assert _props(theirs)["redis.addr"] == "172.18.0.2:6379"
    assert _props(theirs)["redis.datatype"] == "hash"
