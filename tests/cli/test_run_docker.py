"""`contio run` with `runtime: docker`, end to end: the real CLI, the real Docker engine,
real Redis and PostgreSQL containers, the engine in `contio/engine` client containers.

Short on purpose (2 s run phases, a few hundred records): what is checked is the
runtime's mechanics — rows per container, metrics, a database killed mid-run, cleanup.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import docker
import pytest

from contio.containers import labels
from contio.engine.result import read_result
from contio.results.folder import load
from contio.results.index import ResultsIndex

pytestmark = pytest.mark.docker

DOCKER_SPEC = """\
name: dock
runtime: {{type: docker}}
backend: {{type: local-dir, path: {data}}}
factors:
  target: [redis, postgres, lsm]
  workload: [workloada]
  threads: [2]
  containers: [1, 2]
stop: {{rule: fixed-time, seconds: 2, repetitions: 2}}
load: {{reuse: always}}
target_options:
  redis: {{cache: minimal}}
  postgres: {{cache: minimal, memory_limit: 256m}}
  lsm: {{memory_limit: 64m}}
properties: {{recordcount: 300}}
"""


def contio(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "contio", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def finish(proc: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    out, err = proc.communicate(timeout=900)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def write(tmp_path: Path, text: str) -> tuple[Path, Path]:
    data = tmp_path / "data"
    data.mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(text.format(data=data))
    return spec, data


def index_rows(folder: Path, query: str) -> list[sqlite3.Row]:
    with sqlite3.connect(folder / "index.sqlite") as db:
        db.row_factory = sqlite3.Row
        return db.execute(query).fetchall()


def experiment_of(folder: Path) -> str:
    index = ResultsIndex.open(folder)
    try:
        return index.meta("docker_experiment.session1")
    finally:
        index.close()


def assert_nothing_left(client: docker.DockerClient, experiment: str) -> None:
    selector = {"label": f"{labels.EXPERIMENT}={experiment}"}
    assert not client.containers.list(all=True, filters=selector)
    assert not client.networks.list(filters=selector)
    assert not client.volumes.list(filters=selector)


def test_database_and_engine_targets_run_as_containers_with_metrics(tmp_path, docker_client):
    spec, data = write(tmp_path, DOCKER_SPEC)
    done = finish(contio("run", spec, "--results-dir", tmp_path / "results"))
    assert done.returncode == 0, done.stderr
    [folder] = list((tmp_path / "results").iterdir())
    assert [c["status"] for c in index_rows(folder, "SELECT status FROM cells")] == ["done"] * 6

    runs = load(folder)
    runs = runs[runs["phase"] == "run"]
    # A row per repetition and container, each with the cell's target (not the binding's).
    for (target, containers), cell in runs.groupby(["target", "containers"]):
        assert sorted(zip(cell["repetition"], cell["container"], strict=True)) == [
            (r, k) for r in (1, 2) for k in range(1, containers + 1)
        ], target
        assert (cell["status"] == "ok").all() and (cell["operations"] > 0).all()
    assert set(runs["target"]) == {"redis", "postgres", "lsm"}
    # Host and container metrics of every run phase, as the report reads them.
    assert (runs["cpu_percent"] > 0).all() and runs["disk_percent"].notna().all()
    assert (runs["disk_device"] != "").all()
    assert (runs["client_cpu_percent"] > 0).all() and (runs["client_memory_bytes"] > 0).all()
    servers = runs[runs["target"] != "lsm"]
    assert (servers["server_cpu_percent"] > 0).all()
    assert (servers["server_memory_bytes"] > 0).all()
    # Minimal caches: Redis fsyncs every write, PostgreSQL has 1 MB of buffers.
    assert (servers["server_write_bytes_per_sec"] > 0).all()
    embedded = runs[runs["target"] == "lsm"]
    assert embedded["server_cpu_percent"].isna().all()
    assert (embedded["client_write_bytes_per_sec"] > 0).all()  # the engine writes its files

    for cell in sorted((folder / "raw").iterdir()):
        first, second = cell / "s1-rep1", cell / "s1-rep2"
        samples = [json.loads(x) for x in (first / "run-metrics.jsonl").read_text().splitlines()]
        sources = {s["source"] for s in samples}
        assert {"host", "client-c1"} <= sources
        stderr = (first / "run-c1.stderr").read_text()
        if (first / "servers.json").exists():  # a database cell: its servers, once per load
            [*described] = json.loads((first / "servers.json").read_text())
            assert all(s["image"].startswith("contio/") for s in described)
            assert "server-c1" in sources
            # The client found its server where servers.json says it reached it.
            assert described[0]["client_network"] == "host"
            found = {k: v for k, v in described[0]["connection"].items() if "host" in k}
            assert found and all(f"{k}={v}" in stderr for k, v in found.items()), found
            assert not (second / "servers.json").exists()  # repetition 2 ran on the same data
        else:
            assert f"lsm.dir={data}" in stderr  # the backend's directory, mounted as is
        assert not list(first.glob("*.ready")) and not (first / "run.go").exists()
    assert list(data.iterdir()) == []  # data directories released with the backend
    assert_nothing_left(docker_client, experiment_of(folder))


MIX_SPEC = """\
name: mix
runtime: {{type: docker}}
backend: {{type: local-dir, path: {data}}}
mixes:
  pair: [{{workload: workloada, target: redis}}, {{workload: workloada, target: postgres}}]
factors: {{mix: [pair], threads: [2], containers: [2]}}
stop: {{rule: fixed-time, seconds: 3, repetitions: 1}}
target_options:
  redis: {{cache: minimal}}
  postgres: {{cache: minimal, memory_limit: 256m}}
properties: {{recordcount: 300}}
"""


def barrier_seen(results: Path) -> tuple[float, list[float], list[bool]] | None:
    """While the run phase of the only cell's repetition is released: when `run.go` was
    made, when each client's ready file was, and whether each server's data directory
    holds files; None before (or, by a narrow race, after)."""
    found = list(results.glob("*/raw/cell001/s1-rep1/run.go"))
    if not found:
        return None
    directory = found[0].parent
    try:
        go = found[0].stat().st_mtime
        ready = [p.stat().st_mtime for p in directory.glob("run-c*.ready")]
        servers = json.loads((directory / "servers.json").read_text())
        filled = [any(Path(s["data"]).iterdir()) for s in servers]
    except FileNotFoundError:
        return None  # the phase ended meanwhile
    return go, ready, filled


def test_a_mixed_cell_of_four_servers_each_on_its_own_data_starts_together(tmp_path, docker_client):
    """Two Redis and two PostgreSQL servers in one cell, each on its own directory of the
    backend with its own client; the clients' run phases start at the start barrier."""
    spec, data = write(tmp_path, MIX_SPEC)
    results = tmp_path / "results"
    proc = contio("run", spec, "--results-dir", results)
    seen = None
    deadline = time.monotonic() + 600
    while seen is None and proc.poll() is None and time.monotonic() < deadline:
        seen = barrier_seen(results)
        time.sleep(0.02)
    done = finish(proc)
    assert done.returncode == 0, done.stderr
    assert seen is not None, "the run phase was never seen at its start barrier"
    go, ready, filled = seen
    [folder] = list(results.iterdir())
    directory = folder / "raw" / "cell001" / "s1-rep1"

    servers = json.loads((directory / "servers.json").read_text())
    assert sorted(s["target"] for s in servers) == ["postgres", "postgres", "redis", "redis"]
    homes = [Path(s["data"]) for s in servers]
    assert len(set(homes)) == 4 and all(data in home.parents for home in homes), homes
    assert filled == [True] * 4  # each server kept its data in its own directory
    # The barrier: `go` came after every client's ready file, and no client started its
    # run phase before `go` existed (started_at is in ms, floored).
    assert len(ready) == 4 and max(ready) <= go
    documents = [read_result(directory / f"run-c{k}.json") for k in range(1, 5)]
    starts = [datetime.fromisoformat(d.started_at.replace("Z", "+00:00")).timestamp()
              for d in documents]  # fmt: skip
    assert min(starts) >= go - 0.001, (starts, go)
    assert all(d.timeseries for d in documents), "the engine's per-second series is kept"

    phases = index_rows(folder, "SELECT phase, status FROM phases")
    assert (
        sorted((p["phase"], p["status"]) for p in phases)
        == [("load", "ok")] * 4 + [("run", "ok")] * 4
    )
    runs = load(folder)
    assert (runs["operations"] > 0).all()
    assert sorted(runs["target"]) == ["postgres", "postgres", "redis", "redis"]
    # Every client and server sampled; their own CPU, memory and (fsyncing, minimal
    # caches) the servers' writes; the host's CPU and its data disk busy.
    samples = [json.loads(x) for x in (directory / "run-metrics.jsonl").read_text().splitlines()]
    sources = {s["source"] for s in samples}
    assert {f"{who}-c{k}" for who in ("client", "server") for k in range(1, 5)} <= sources
    assert sum(s["source"] == "host" for s in samples) >= 2
    assert (runs["client_cpu_percent"] > 0).all() and (runs["server_cpu_percent"] > 0).all()
    assert (runs["client_memory_bytes"] > 0).all() and (runs["server_memory_bytes"] > 0).all()
    assert (runs["server_write_bytes_per_sec"] > 0).all()
    assert (runs["cpu_percent"] > 0).all() and (runs["disk_percent"] > 0).any()
    assert runs["server_major_faults_per_sec"].notna().all()  # the memory-thrashing check's
    # Loads are sampled too: a load that stalls shows its servers' memory.
    assert (directory / "load-metrics.jsonl").is_file()
    loads = index_rows(folder, "SELECT server_memory_bytes FROM phases WHERE phase = 'load'")
    assert loads and all((row["server_memory_bytes"] or 0) > 0 for row in loads), loads
    assert list(data.iterdir()) == []
    assert_nothing_left(docker_client, experiment_of(folder))


KILL_SPEC = """\
name: kill
runtime: {{type: docker}}
backend: {{type: local-dir, path: {data}}}
factors:
  target: [redis]
  workload: [workloada]
  threads: [2]
  properties: {{maxexecutiontime: [120, 2]}}
repetitions: 1
properties: {{recordcount: 300, operationcount: 0}}
"""


def test_a_database_killed_mid_run_fails_its_cell_and_the_next_cell_runs(tmp_path, docker_client):
    spec, data = write(tmp_path, KILL_SPEC)
    results = tmp_path / "results"
    proc = contio("run", spec, "--results-dir", results)
    go = None
    deadline = time.monotonic() + 600
    while go is None and proc.poll() is None and time.monotonic() < deadline:
        # The go file exists from the moment the run phase is released until it ends.
        found = list(results.glob("*/raw/cell001/s1-rep1/run.go"))
        go = found[0] if found else None
        time.sleep(0.05)
    assert go is not None, proc.communicate()[1]
    folder = go.parents[3]
    selector = [f"{labels.EXPERIMENT}={experiment_of(folder)}", f"{labels.ROLE}=db-redis"]
    [server] = docker_client.containers.list(filters={"label": selector})
    server.kill()
    done = finish(proc)

    assert done.returncode == 1, done.stderr  # a cell failed; the run itself went on
    cells = index_rows(folder, "SELECT cell_index, status, reason FROM cells ORDER BY cell_index")
    assert [c["status"] for c in cells] == ["failed", "done"]
    reason = cells[0]["reason"]
    assert "database container" in reason and "(redis) exited with code 137" in reason
    assert "during the run phase" in reason
    [run] = index_rows(folder, "SELECT * FROM phases WHERE phase = 'run'")
    assert run["cell_index"] == 2 and run["status"] == "ok" and run["operations"] > 0
    assert re.search(r"failed: cell 1 \([^)]*\): repetition 1: database container", done.stdout)
    shown = subprocess.run(
        [sys.executable, "-m", "contio", "results", folder],
        capture_output=True,
        text=True,
        check=False,
    )
    assert "1 failed" in shown.stdout and "exited with code 137" in shown.stdout
    assert list(data.iterdir()) == []
    assert_nothing_left(docker_client, experiment_of(folder))


VOLUME_SPEC = """\
name: vol
runtime: {type: docker}
backends:
  volume: {type: local, mode: docker-volume}
factors:
  target: [redis]
  workload:
    - {kind: fio, name: randread, job: {rw: randread, bs: 4k, ioengine: psync, size: 4m}}
    - workloadc
  containers: [2]
stop: {rule: fixed-time, seconds: 2, repetitions: 1}
properties: {recordcount: 200}
"""


def test_file_workloads_and_databases_keep_their_data_on_docker_volumes(tmp_path, docker_client):
    spec = tmp_path / "spec.yaml"
    spec.write_text(VOLUME_SPEC)
    done = finish(contio("run", spec, "--results-dir", tmp_path / "results"))
    assert done.returncode == 0, done.stderr
    [folder] = list((tmp_path / "results").iterdir())
    runs = load(folder)
    runs = runs[runs["phase"] == "run"]
    assert len(runs) == 4 and (runs["status"] == "ok").all()
    fio = runs[runs["workload"] == "randread"]
    assert (fio["iops"] > 0).all()  # the engine read its files from its volume at /data
    servers = json.loads((folder / "raw" / "cell002" / "s1-rep1" / "servers.json").read_text())
    assert all(s["volume"] and s["data"] is None for s in servers)
    assert (runs["disk_device"] == "busiest").all()  # no host directory holds a volume
    assert_nothing_left(docker_client, experiment_of(folder))


def test_an_unreachable_docker_engine_exits_2_before_anything_is_provisioned(tmp_path):
    spec, data = write(tmp_path, DOCKER_SPEC)
    unreachable = {"DOCKER_HOST": "tcp://127.0.0.1:9"}  # the discard port: nothing listens
    run = contio("run", spec, "--results-dir", tmp_path / "results", env=unreachable)
    plan = contio("plan", spec, env=unreachable)
    for done in (finish(run), finish(plan)):
        assert done.returncode == 2, done.stderr
        assert "runtime.type: 'docker' needs a Docker engine" in done.stderr
        assert "DOCKER_HOST" in done.stderr and "tcp://127.0.0.1:9" in done.stderr
    assert not (tmp_path / "results").exists()
    assert list(data.iterdir()) == []
