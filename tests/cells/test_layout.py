"""Planning a cell's instances and its clients' engine arguments (no Docker needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.cells.bindings import EngineBinding
from contio.cells.engine_client import EngineJob, engine_args
from contio.cells.layout import plan_instances
from contio.errors import UsageError


def test_homogeneous_cell_gives_each_instance_its_own_data_dir(tmp_path: Path):
    instances = plan_instances(["mariadb"], 3, data_root=tmp_path)
    assert [(i.name, i.target) for i in instances] == [
        ("mariadb-0", "mariadb"), ("mariadb-1", "mariadb"), ("mariadb-2", "mariadb"),
    ]  # fmt: skip
    assert len({i.data_dir for i in instances}) == 3
    assert all(i.data_dir.parent == tmp_path for i in instances)


def test_heterogeneous_cell_splits_equally_first_ones_get_the_remainder():
    instances = plan_instances(["redis", "postgres"], 5)
    targets = [i.target for i in instances]
    assert targets.count("redis") == 3 and targets.count("postgres") == 2
    assert all(i.data_dir is None for i in instances)  # named volumes


def test_explicit_counts_must_add_up():
    assert len(plan_instances(["redis"], 3, counts={"redis": 1, "postgres": 2})) == 3
    with pytest.raises(UsageError, match="do not add up"):
        plan_instances(["redis"], 4, counts={"redis": 1})


def test_unknown_target_is_refused_with_the_known_ones():
    with pytest.raises(UsageError, match=r"known: .*redis"):
        plan_instances(["mongo"], 2)


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
