"""Cells on the real dockerd: 4 homogeneous containers, a 2 + 2 heterogeneous mix, and a
database container killed mid-run. Each instance has its own data directory and its
own engine client container; per-container results and cgroup metrics must be there.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from pathlib import Path

import docker
import pytest

from cell_fixtures import database_image
from contio.cells.engine_client import GO_FILE
from contio.cells.layout import CellSpec, plan_instances
from contio.cells.outcome import CellResult
from contio.cells.run_cell import run_cell
from contio.containers import labels
from contio.containers.docker_runtime import DockerRuntime
from contio.targets.base import CacheMode, TargetOptions

pytestmark = pytest.mark.docker

# Small and short: the point is the cell's mechanics, not the databases' speed.
PROPS = {"recordcount": "2000", "fieldlength": "200"}
RUN = {"operationcount": "0", "maxexecutiontime": "3"}
# Minimal caches: Redis fsyncs every write and PostgreSQL's buffers are tiny, so the
# containers' own block I/O shows in their cgroups.
OPTIONS = TargetOptions(cache=CacheMode.MINIMAL)


def _spec(instances, engine_image: str, **run: str) -> CellSpec:
    return CellSpec(
        instances=instances, threads=2, properties=PROPS, run_properties={**RUN, **run},
        options=OPTIONS, engine_image=engine_image, phase_timeout_s=300,
    )  # fmt: skip


def _assert_complete(result: CellResult) -> None:
    assert result.status == "ok", result.reason
    for instance in result.instances:
        assert instance.load is not None and instance.load.status == "ok"
        assert instance.run is not None and instance.run.status == "ok", instance.run.error
        assert instance.run.operations > 0
        assert instance.run.timeseries, "the engine's per-second series is kept"
        db, client = instance.database, instance.client
        assert db is not None and client is not None, instance.instance.name
        assert db.samples >= 2 and client.samples >= 2
        assert db.cpu_seconds > 0 and client.cpu_seconds > 0
        assert db.peak_memory_bytes > 0 and client.peak_memory_bytes > 0
        # The database fsyncs its log in these modes: its own writes reach storage.
        # (The per-device blkio counters of cgroup v1 stay at zero on this kernel for a
        # device without a throttle rule, so the processes' own counters are checked.)
        assert db.task_write_bytes > 0, instance.instance.name
    assert result.run_operations == sum(i.run.operations for i in result.instances)
    # Metrics beside the engine's documents: per container and host lines every second.
    lines = [json.loads(line) for line in result.metrics_path.read_text().splitlines()]
    sources = {line["source"] for line in lines}
    for instance in result.instances:
        assert {f"db-{instance.instance.name}", f"client-{instance.instance.name}"} <= sources
    host = [line for line in lines if line["source"] == "host"]
    assert len(host) >= 2 and any(line["cpu_percent"] > 0 for line in host)
    assert any(d["util_percent"] > 0 for line in host for d in line["disks"].values())
    summary = json.loads((result.out_dir / "cell.json").read_text())
    assert summary["status"] == "ok" and len(summary["instances"]) == len(result.instances)


def _assert_nothing_left(client: docker.DockerClient, runtime: DockerRuntime) -> None:
    selector = {"label": f"{labels.EXPERIMENT}={runtime.experiment}"}
    assert not client.containers.list(all=True, filters=selector)
    assert not client.volumes.list(filters=selector)


def test_four_homogeneous_containers_each_with_its_own_data_and_client(
    docker_client, engine_image: str, cell_runtime: DockerRuntime, tmp_path: Path
):
    database_image(docker_client, "redis")
    instances = plan_instances(["redis"], 4, data_root=tmp_path / "backend")
    assert [i.name for i in instances] == ["redis-0", "redis-1", "redis-2", "redis-3"]

    result = run_cell(cell_runtime, _spec(instances, engine_image), tmp_path / "cell")

    _assert_complete(result)
    for instance in instances:  # each server kept its data in its own directory
        assert any((instance.data_dir).iterdir()), instance.name
    # The barrier: the go file came after every client's ready file, and no client
    # started its run phase before the go file existed (started_at is in ms, floored).
    out = result.out_dir
    go = (out / GO_FILE).stat().st_mtime
    assert max((out / f"ready-{i.name}-run").stat().st_mtime for i in instances) <= go
    starts = [datetime.fromisoformat(i.run.started_at.replace("Z", "+00:00")).timestamp()
              for i in result.instances]  # fmt: skip
    assert min(starts) >= go - 0.001, (starts, go)
    _assert_nothing_left(docker_client, cell_runtime)


def test_two_plus_two_heterogeneous_mix(
    docker_client, engine_image: str, cell_runtime: DockerRuntime, tmp_path: Path
):
    for recipe in ("redis", "postgres"):
        database_image(docker_client, recipe)
    instances = plan_instances(["redis", "postgres"], 4, data_root=tmp_path / "backend")
    assert sorted(i.target for i in instances) == ["postgres", "postgres", "redis", "redis"]

    result = run_cell(cell_runtime, _spec(instances, engine_image), tmp_path / "cell")

    _assert_complete(result)
    by_target = {i.instance.target for i in result.instances if i.run.operations > 0}
    assert by_target == {"redis", "postgres"}
    _assert_nothing_left(docker_client, cell_runtime)


def test_a_database_killed_mid_run_fails_the_cell_and_leaves_nothing(
    docker_client, engine_image: str, cell_runtime: DockerRuntime, tmp_path: Path
):
    database_image(docker_client, "redis")
    instances = plan_instances(["redis"], 2, data_root=tmp_path / "backend")
    out = tmp_path / "cell"
    victim = f"contio-{cell_runtime.experiment}-db-redis-1"

    def kill_once_running() -> None:
        # The go file appears when the run phase is released; kill a server then.
        while not (out / GO_FILE).exists():
            if done.wait(0.05):
                return
        docker_client.containers.get(victim).kill()

    done = threading.Event()
    killer = threading.Thread(target=kill_once_running)
    killer.start()
    try:
        result = run_cell(cell_runtime, _spec(instances, engine_image, maxexecutiontime="60"), out)
    finally:
        done.set()
        killer.join()

    assert result.status == "failed"
    assert "redis-1" in result.reason and "exited" in result.reason, result.reason
    assert "during the run phase" in result.reason
    assert json.loads((out / "cell.json").read_text())["status"] == "failed"
    _assert_nothing_left(docker_client, cell_runtime)
