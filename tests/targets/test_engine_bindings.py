"""Each database through the engine's own binding, the engine running as a client
container on the experiment's network: load 10,000 records, run workload A for a few
seconds with 4 threads, then a second client reads every record back and checks it
byte for byte.

The check uses `dataintegrity`: every value the engine writes (loads and updates) is a
function of its key and field, so a reader can recompute it. The second client reads
each key once (sequential, read-only) and counts VERIFY outcomes. One record is also
read with the database's own client and compared with Python's computation of the
value, so the stored bytes are right, not just self-consistent.
"""

from __future__ import annotations

from pathlib import Path

import docker
import pytest
from docker.models.containers import Container

from cell_fixtures import database_image
from contio.cells.bindings import engine_binding
from contio.cells.engine_client import EngineJob, prepare_workdir, run_client
from contio.containers.docker_runtime import DockerRuntime
from contio.targets import registry
from contio.targets.base import TargetOptions, run_in
from minimal_settings import MINIMAL_SETTINGS

pytestmark = pytest.mark.docker

RECORDS = 10_000
#: key number 0 as the load phase names it (hashed insert order; ycsb-reference.md)
FIRST_KEY = "user6284781860667377211"


def java_hash(text: bytes) -> int:
    """Java's String.hashCode of ASCII text."""
    h = 0
    for b in text:
        h = (h * 31 + b) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def expected_value(key: str, field: str, length: int = 100) -> bytes:
    """What `dataintegrity` stores: `key:field`, then `:hash-so-far` links, cut to length."""
    value = f"{key}:{field}".encode()
    while len(value) < length:
        value += b":" + str(java_hash(value)).encode()
    return value[:length]


def _mariadb(target, c: Container) -> bytes:
    # Batch mode escapes only tabs, newlines and backslashes, which the value has none of.
    sql = f"SELECT FIELD0 FROM usertable WHERE YCSB_KEY = '{FIRST_KEY}'"
    return run_in(c, target.client(sql, "ycsb")).encode()


def _postgres(target, c: Container) -> bytes:
    url = "host=127.0.0.1 user=ycsb password=ycsb dbname=ycsb"
    sql = f"SELECT field0 FROM usertable WHERE ycsb_key = '{FIRST_KEY}'"
    return run_in(c, ["psql", url, "--no-align", "--tuples-only", "--command", sql]).encode()


def _redis(target, c: Container) -> bytes:
    return run_in(c, ["redis-cli", "--raw", "HGET", FIRST_KEY, "field0"]).encode()


def _cassandra(target, c: Container) -> bytes:
    cql = f"SELECT field0 FROM ycsb.usertable WHERE y_id = '{FIRST_KEY}';"
    output = run_in(c, target.client(cql), {"HOME": "/tmp"})
    rows = [line.strip() for line in output.splitlines() if line.strip()]
    rule = next(i for i, row in enumerate(rows) if row.startswith("---"))
    return rows[rule + 1].encode()


def _ferretdb(target, c: Container) -> bytes:
    with target.client(c) as client:
        return bytes(client.ycsb.usertable.find_one({"_id": FIRST_KEY})["field0"])


NATIVE_READ = {
    "mariadb": _mariadb,
    "postgres": _postgres,
    "redis": _redis,
    "cassandra": _cassandra,
    "ferretdb": _ferretdb,
}


def test_every_database_has_a_native_read():
    assert sorted(NATIVE_READ) == sorted(registry.offline_names())


def _returns(result, operation: str) -> dict[str, int]:
    stats = result.operations_by_type.get(operation)
    return dict(stats.returns) if stats is not None else {}


@pytest.mark.parametrize("name", registry.offline_names())
def test_engine_loads_runs_and_a_second_client_reads_back_every_byte(
    name: str,
    docker_client: docker.DockerClient,
    engine_image: str,
    cell_runtime: DockerRuntime,
    tmp_path: Path,
):
    target = registry.target(name)
    database_image(docker_client, target.recipe)
    server = target.start(cell_runtime, "db", TargetOptions(), host_path=tmp_path / "data")
    target.wait_ready(server, timeout_s=240)
    target.create_schema(server)
    binding = engine_binding(target, server)
    workdir = prepare_workdir(tmp_path / "work")
    records = RECORDS
    common = {"recordcount": str(records), "dataintegrity": "true"}

    def phase(job_name: str, phase: str, threads: int, **props: str):
        job = EngineJob(job_name, phase, binding, "workloada", threads, {**common, **props})
        return run_client(cell_runtime, engine_image, workdir, job, timeout_s=300)

    load = phase("load", "load", 4)
    assert load.status == "ok", load.error
    assert _returns(load, "INSERT") == {"OK": records}

    run = phase("run", "run", 4, operationcount="0", maxexecutiontime="3")
    assert run.status == "ok", run.error
    assert run.threads == 4
    assert _returns(run, "READ").get("OK", 0) > 0
    assert _returns(run, "UPDATE").get("OK", 0) > 0
    assert set(_returns(run, "VERIFY")) == {"OK"}, _returns(run, "VERIFY")

    # A second client: every key once, read-only, each value checked byte for byte.
    check = phase(
        "check", "run", 1, operationcount=str(records), readproportion="1",
        updateproportion="0", requestdistribution="sequential",
    )  # fmt: skip
    assert check.status == "ok", check.error
    assert _returns(check, "READ") == {"OK": records}
    assert _returns(check, "VERIFY") == {"OK": records}

    assert NATIVE_READ[name](target, server) == expected_value(FIRST_KEY, "field0")

    # Started with default caches: the server does not report what `minimal` sets
    # (test_database_targets checks that minimal does).
    minimal = MINIMAL_SETTINGS[name]
    reported = target.effective_settings(server)
    assert {key: reported.get(key) for key in minimal} != minimal


def test_mongodb_batchsize_queues_inserts_cleanup_sends_the_last_batch_and_upsert_replaces(
    docker_client: docker.DockerClient,
    engine_image: str,
    cell_runtime: DockerRuntime,
    tmp_path: Path,
):
    # YCSB's `batchsize`: queued inserts answer BATCHED_OK, every seventh sends them all;
    # 100 records over 4 threads leave 4 queued per thread for cleanup to send.
    target = registry.target("ferretdb")
    database_image(docker_client, target.recipe)
    server = target.start(cell_runtime, "db", TargetOptions(), host_path=tmp_path / "data")
    target.wait_ready(server, timeout_s=240)
    target.create_schema(server)
    job = EngineJob(
        "load", "load", engine_binding(target, server), "workloada", 4,
        {"recordcount": "100", "batchsize": "7"},
    )  # fmt: skip
    load = run_client(cell_runtime, engine_image, prepare_workdir(tmp_path / "work"), job, 300)
    assert load.status == "ok", load.error
    assert _returns(load, "INSERT") == {"OK": 4 * 3, "BATCHED_OK": 4 * (3 * 6 + 4)}
    with target.client(server) as client:
        assert client.ycsb.usertable.count_documents({}) == 100
    # YCSB's `mongodb.upsert` (PerfKitBenchmarker passes `True`): loading the same keys
    # again replaces them, batched (one update command per batch) or one by one, where
    # plain inserts would fail on the duplicate _id.
    for batch, returns in (("7", {"OK": 4 * 3, "BATCHED_OK": 4 * (3 * 6 + 4)}), ("1", {"OK": 100})):
        again = EngineJob(
            f"upsert{batch}", "load", engine_binding(target, server), "workloada", 4,
            {"recordcount": "100", "batchsize": batch, "mongodb.upsert": "True"},
        )  # fmt: skip
        workdir = prepare_workdir(tmp_path / f"upsert{batch}")
        upserted = run_client(cell_runtime, engine_image, workdir, again, 300)
        assert upserted.status == "ok", upserted.error
        assert _returns(upserted, "INSERT") == returns
    with target.client(server) as client:
        assert client.ycsb.usertable.count_documents({}) == 100
