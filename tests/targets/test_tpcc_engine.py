"""`contio-engine tpcc` against a real MariaDB and a real PostgreSQL (contio's images):
load 1 warehouse, run the five transactions for a few seconds with 4 terminals, then
check the TPC-C consistency conditions 1 and 2 (`tpcc check`).

The engine runs on the host (the `engine` fixture: the installed one or
`CONTIO_ENGINE`) and reaches the server at its container address. The load uses the
test-only scale `tpcc.items=2000`, `tpcc.customers=300` (the spec's are 100,000 and
3,000) so it takes seconds.
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
from contio.targets.base import TargetOptions

pytestmark = pytest.mark.docker

BINDING = {"mariadb": "mysql", "postgres": "postgres"}
TRANSACTIONS = ("NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL")


def _address(server) -> str:
    server.reload()
    networks = server.attrs["NetworkSettings"]["Networks"]
    return next(n["IPAddress"] for n in networks.values() if n.get("IPAddress"))


@pytest.mark.parametrize("name", ["mariadb", "postgres"])
def test_tpcc_loads_runs_and_keeps_the_consistency_conditions(
    name: str,
    engine: Path,
    docker_client: docker.DockerClient,
    cell_runtime: DockerRuntime,
    tmp_path: Path,
):
    target = registry.target(name)
    database_image(docker_client, target.recipe)
    server = target.start(cell_runtime, "db", TargetOptions(), host_path=tmp_path / "data")
    target.wait_ready(server, timeout_s=240)
    target.create_schema(server)  # the `ycsb` account and database (and YCSB's table)
    binding = BINDING[name]
    host = ["-p", f"{binding}.host={_address(server)}"]

    def tpcc(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(engine), "tpcc", *args], capture_output=True, text=True, timeout=300, check=False
        )
        if check:
            assert done.returncode == 0, done.stderr
        return done

    small = ["-p", "tpcc.items=2000", "-p", "tpcc.customers=300"]
    tpcc("load", binding, *host, "-p", "warehouses=1", *small, "-threads", "2")
    out = tmp_path / "run.json"
    tpcc("run", binding, *host, "-p", "maxexecutiontime=4", "-threads", "4", "-json", str(out))
    doc = json.loads(out.read_text())
    assert doc["kind"] == "tpcc" and doc["status"] == "ok", doc["error"]
    ran = doc["operations_by_type"]
    for name_ in TRANSACTIONS:
        assert ran.get(name_, {}).get("count", 0) > 0, (name_, sorted(ran))
    assert doc["tpcc"]["tpmC"] > 0
    assert doc["tpcc"]["warehouses"] == 1 and doc["tpcc"]["items"] == 2000
    assert sum(doc["tpcc"]["failed"].values()) == 0, doc["tpcc"]
    checked = tpcc("check", binding, *host)
    assert "VIOLATED" not in checked.stdout, checked.stdout
    assert checked.stdout.count(", ok,") == 2, checked.stdout
