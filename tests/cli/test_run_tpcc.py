"""`contio run` of a `{kind: tpcc}` workload on MariaDB, end to end: the real CLI, the
real Docker engine, contio's MariaDB image, the engine in a `contio/engine` container.

The smallest real run: 1 warehouse at the engine's test-only scale (`tpcc.items`,
`tpcc.customers`) so the load takes seconds, and one 3 s run phase. What is checked is
what only the whole path shows: the spec's workload reaches `contio-engine tpcc`, the
five transactions ran, and the results rows carry tpmC in the `tpmc` column.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from contio.engine.result import read_result
from contio.results.folder import load

pytestmark = pytest.mark.docker

SPEC = """\
name: tpcc-smoke
runtime: {{type: docker}}
backend: {{type: local-dir, path: {data}}}
factors:
  target: [mariadb]
  workload: [{{kind: tpcc, warehouses: 1}}]
  threads: [2]
  containers: [1]
stop: {{rule: fixed-time, seconds: 3, repetitions: 1}}
target_options:
  mariadb: {{cache: minimal, memory_limit: 512m}}
properties: {{tpcc.items: 2000, tpcc.customers: 30}}
"""

TRANSACTIONS = {"NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL"}


def test_a_tpcc_workload_runs_on_mariadb_and_reports_tpmc(tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(data=data))
    results = tmp_path / "results"
    done = subprocess.run(
        [sys.executable, "-m", "contio", "run", str(spec), "--results-dir", str(results)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [folder] = list(results.iterdir())

    rows = load(folder)
    [run] = rows[rows["phase"] == "run"].itertuples()
    assert run.status == "ok" and run.workload == "tpcc-1w"
    assert run.tpmc > 0
    loads = rows[rows["phase"] == "load"]
    assert (loads["status"] == "ok").all() and loads["tpmc"].isna().all()

    [raw] = list(folder.glob("raw/cell*/s1-rep1/run-c1.json"))
    result = read_result(raw)
    assert result.kind == "tpcc"
    ran = {name for name, seen in result.operations_by_type.items() if seen.count > 0}
    assert ran >= TRANSACTIONS, sorted(ran)
    assert result.tpcc is not None and result.tpcc["items"] == 2000
