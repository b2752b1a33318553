"""What the engine's `redis` binding costs a real redis-server (contio/redis) per
operation, counted by Redis itself: `INFO` after `CONFIG RESETSTAT`, around a run of
workload A (reads of all fields and one-field updates).

Per operation Redis must see exactly one command (`HGETALL` per read, as YCSB's binding
reads all fields; `HSET` per update), arriving in one request (one read event) and
answered with one reply; per run only the driver's one `PING`, and no failed command.
Per-connection handshakes (the `redis` crate's `CLIENT SETINFO`, refused by Redis 7.0)
and per-operation extras (`SELECT`, `PING`) show up here as commands or errors. The
bytes per operation stay below go-ycsb's (1.0.3, `redis.datatype=hash`: 175 B per
operation of workload A, measured the same way; docs/benchmarks.md).

The engine runs on the host (the `engine` fixture) and reaches Redis at its container
address. Every way of waiting for replies runs: each thread reading its own socket (1
thread, `redis.replywait=block`; polling first, `spin`), and the poller thread for all
connections (16 threads, `poller`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import docker
import pytest

from cell_fixtures import database_image
from contio.containers.docker_runtime import DockerRuntime
from contio.targets import registry
from contio.targets.base import TargetOptions, run_in

pytestmark = pytest.mark.docker

RECORDS = 2_000
OPERATIONS = 3_000
WORKLOAD = Path(__file__).parents[2] / "python/contio/workload/ycsb/workloada"
#: go-ycsb 1.0.3's bytes per operation of workload A into Redis (HMGET of ten names or HSET)
GO_YCSB_INPUT_BYTES_PER_OP = 175


def _address(server) -> str:
    server.reload()
    networks = server.attrs["NetworkSettings"]["Networks"]
    return next(n["IPAddress"] for n in networks.values() if n.get("IPAddress"))


def _info(server) -> dict[str, str]:
    """`INFO everything` as name → value (commandstats lines keep their `calls=…` text)."""
    text = run_in(server, ["redis-cli", "--raw", "INFO", "everything"])
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {name: value.strip() for name, value in pairs}


def _calls(info: dict[str, str]) -> dict[str, int]:
    """Calls per command, from the `cmdstat_NAME:calls=N,…` lines."""
    return {
        name.removeprefix("cmdstat_"): int(value.split(",")[0].removeprefix("calls="))
        for name, value in info.items()
        if name.startswith("cmdstat_")
    }


def _engine(engine: Path, tmp_path: Path, args: list[str]) -> dict:
    out = tmp_path / "result.json"
    done = subprocess.run(
        [str(engine), *args, "-json", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize(("threads", "wait"), [(1, "block"), (1, "spin"), (16, "poller")])
def test_each_operation_is_one_command_in_one_request(
    threads: int,
    wait: str,
    engine: Path,
    docker_client: docker.DockerClient,
    cell_runtime: DockerRuntime,
    tmp_path: Path,
):
    target = registry.target("redis")
    database_image(docker_client, target.recipe)
    server = target.start(cell_runtime, "db", TargetOptions(), host_path=tmp_path / "data")
    target.wait_ready(server, timeout_s=120)
    props = ["-p", f"redis.host={_address(server)}", "-p", f"recordcount={RECORDS}"]
    props += ["-p", f"redis.replywait={wait}"]
    load = _engine(engine, tmp_path, ["load", "redis", "-P", str(WORKLOAD), *props])
    assert load["operations"] == RECORDS

    run_in(server, ["redis-cli", "CONFIG", "RESETSTAT"])
    run = _engine(
        engine, tmp_path,
        ["run", "redis", "-P", str(WORKLOAD), *props, "-p", f"operationcount={OPERATIONS}",
         "-threads", str(threads)],
    )  # fmt: skip
    info = _info(server)

    by_type = run["operations_by_type"]
    reads, updates = by_type["READ"]["count"], by_type["UPDATE"]["count"]
    assert reads + updates == OPERATIONS
    assert by_type["READ"]["returns"] == {"OK": reads}
    assert run["target_description"]["replies"].startswith(f"{wait}:")
    # One command per operation; per run, the driver's PING (and our RESETSTAT).
    assert _calls(info) == {"hgetall": reads, "hset": updates, "ping": 1, "config|resetstat": 1}
    assert not [name for name in info if name.startswith("errorstat_")]
    # One read event per request and one write per reply. Besides the operations:
    # the PING, each connection's close (threads + the driver's probe), and the
    # redis-cli connections of RESETSTAT and INFO.
    setup = 1 + (threads + 1) + 2
    assert OPERATIONS <= int(info["total_reads_processed"]) <= OPERATIONS + setup
    assert OPERATIONS <= int(info["total_writes_processed"]) <= OPERATIONS + setup
    assert int(info["total_net_input_bytes"]) < GO_YCSB_INPUT_BYTES_PER_OP * OPERATIONS
