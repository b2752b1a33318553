"""The engine arguments of a cell's client containers (no Docker needed)."""

from __future__ import annotations

from contio.cells.bindings import EngineBinding
from contio.cells.engine_client import EngineJob, engine_args


def test_run_clients_wait_at_the_barrier_and_properties_win_over_the_binding():
    binding = EngineBinding("redis", {"redis.host": "db", "redis.port": "6379"})
    job = EngineJob("r-0-run", "run", binding, "workloada", 4, {"redis.port": "7000"}, True)
    args = engine_args(job)
    assert args[:2] == ["run", "redis"]
    assert "redis.port=7000" in args and "redis.port=6379" not in args
    assert "startbarrier.ready=/cell/ready-r-0-run" in args
    assert "startbarrier.go=/cell/go" in args
    assert args[-4:] == ["-threads", "4", "-json", "/cell/r-0-run.json"]
    load = EngineJob("r-0-load", "load", binding, "workloada", 4)
    assert not any(a.startswith("startbarrier") for a in engine_args(load))
