"""`contio-engine cstress` against a real Cassandra (contio's image): write a small
population, read every partition back (each row checked), run a short mixed workload,
and read partitions that were never written, which count as errors as in the real
cassandra-stress. The `Results:` block is read with PerfKitBenchmarker's own rule for
cassandra-stress (`cassandra_stress_benchmark.CollectResultFile`: the last 20 lines,
`METRIC[\\t ]+: ([\\d\\.:]+)` per metric, `HH:MM:SS` for the operation time), written
out here rather than taken from contio's code.

The engine runs on the host (the `engine` fixture: the installed one or
`CONTIO_ENGINE`) and reaches the server at its container address.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import docker
import pytest

from cell_fixtures import database_image
from contio.containers.docker_runtime import DockerRuntime
from contio.targets import registry
from contio.targets.base import TargetOptions, run_in

pytestmark = pytest.mark.docker

PARTITIONS = 2000
# PerfKitBenchmarker's cassandra_stress_benchmark.RESULTS_METRICS, in its order.
PKB_METRICS = (
    "op rate", "partition rate", "row rate", "latency mean", "latency median",
    "latency 95th percentile", "latency 99th percentile", "latency 99.9th percentile",
    "latency max", "Total partitions", "Total errors", "Total operation time",
)  # fmt: skip


def pkb_parse(stdout: str) -> dict[str, float]:
    """What PKB's CollectResultFile takes from a cassandra-stress result file."""
    tail = "\n".join(stdout.splitlines()[-20:])
    found: dict[str, float] = {}
    for metric in PKB_METRICS:
        match = re.search(r"%s[\t ]+: ([\d\.:]+)" % metric, tail)  # noqa: UP031 (PKB's form)
        assert match, f"PKB finds no {metric!r} in:\n{tail}"
        value = match.group(1)
        if metric == "Total operation time":
            h, m, s = value.split(":")
            found[metric] = int(h) * 3600 + int(m) * 60 + int(s)
        else:
            found[metric] = float(value)
    return found


def _address(server) -> str:
    server.reload()
    networks = server.attrs["NetworkSettings"]["Networks"]
    return next(n["IPAddress"] for n in networks.values() if n.get("IPAddress"))


def test_cstress_writes_reads_back_and_counts_unwritten_reads_as_errors(
    engine: Path,
    docker_client: docker.DockerClient,
    cell_runtime: DockerRuntime,
    tmp_path: Path,
):
    target = registry.target("cassandra")
    database_image(docker_client, target.recipe)
    server = target.start(cell_runtime, "db", TargetOptions(), host_path=tmp_path / "data")
    target.wait_ready(server, timeout_s=300)
    node = ["-node", _address(server)]

    def cstress(*args: str, code: int = 0) -> tuple[dict, str]:
        out = tmp_path / f"{args[0]}-{len(list(tmp_path.glob('*.json')))}.json"
        done = subprocess.run(
            [str(engine), "cstress", *args, *node, "-json", str(out)],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == code, done.stderr
        return json.loads(out.read_text()), done.stdout

    population = f"seq=1..{PARTITIONS}"
    write, text = cstress("write", "cassandra", f"n={PARTITIONS}", "-pop", population,
                          "-rate", "threads=4")  # fmt: skip
    assert write["kind"] == "cstress" and write["status"] == "ok", write["error"]
    assert write["operations_by_type"]["WRITE"]["returns"] == {"OK": PARTITIONS}
    assert write["cstress"]["total_partitions"] == PARTITIONS
    pkb = pkb_parse(text)
    assert pkb["Total partitions"] == PARTITIONS and pkb["Total errors"] == 0
    assert pkb["op rate"] > 0 and pkb["latency max"] >= pkb["latency median"] > 0
    # The server holds every partition (counted by Cassandra's own client).
    cql = "SELECT count(*) FROM keyspace1.standard1;"
    counted = run_in(server, target.client(cql), {"HOME": "/tmp"})
    assert re.search(rf"^\s*{PARTITIONS}\s*$", counted, re.MULTILINE), counted

    # Every partition read back once, each row checked against the values written.
    read, text = cstress("read", f"n={PARTITIONS}", "-pop", population, "-rate", "threads=4")
    assert read["status"] == "ok", read["error"]
    assert read["operations_by_type"]["READ"]["returns"] == {"OK": PARTITIONS}
    assert pkb_parse(text)["Total partitions"] == PARTITIONS

    # The mixed command with the real tool's default gaussian over the population.
    mixed, text = cstress("mixed", "n=400", "ratio(write=1,read=1)", "-pop",
                          f"dist=GAUSSIAN(1..{PARTITIONS})", "-rate", "threads=2")  # fmt: skip
    assert mixed["status"] == "ok", mixed["error"]
    by_type = mixed["cstress"]["by_type"]
    assert by_type["READ"]["operations"] + by_type["WRITE"]["operations"] == 400
    assert by_type["READ"]["errors"] == 0 and by_type["WRITE"]["operations"] > 0
    assert pkb_parse(text)["Total errors"] == 0

    # Partitions beyond the population were never written: errors, as in the real tool.
    beyond = f"seq={PARTITIONS - 9}..{PARTITIONS + 10}"
    failed, _ = cstress("read", "n=20", "-pop", beyond, "-rate", "threads=1", code=1)
    assert failed["status"] == "failed" and "never written" in failed["error"]
    ignored, text = cstress("read", "n=20", "-pop", beyond, "-rate", "threads=1",
                            "-errors", "ignore")  # fmt: skip
    assert ignored["status"] == "ok", ignored["error"]
    assert ignored["operations_by_type"]["READ"]["returns"] == {"OK": 10, "NOT_FOUND": 10}
    assert pkb_parse(text)["Total errors"] == 10
    assert pkb_parse(text)["Total partitions"] == 10
