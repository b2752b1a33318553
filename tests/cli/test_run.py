"""`contio run` end to end: the real CLI process, the real engine, real files and signals."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contio.engine.result import read_result
from contio.stats import mean
from ycsb_text import parse_ycsb_text


def contio(*args: str | Path, **kwargs) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "contio", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def run_contio(*args: str | Path) -> subprocess.CompletedProcess[str]:
    proc = contio(*args)
    out, err = proc.communicate(timeout=600)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def write_spec(tmp_path: Path, **fields: str) -> Path:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    spec = {
        "name": "tiny",
        "targets": "[null]",
        "workloads": "[workloada]",
        "threads": "[1, 2]",
        "repetitions": "2",
        "backend": f"{{type: local-dir, path: {data}}}",
        "properties": "{recordcount: 200, operationcount: 2000}",
    } | fields
    path = tmp_path / "spec.yaml"
    path.write_text("".join(f"{k}: {v}\n" for k, v in spec.items()))
    return path


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as src:
        return list(csv.DictReader(src))


def index_rows(folder: Path, table: str) -> list[sqlite3.Row]:
    with sqlite3.connect(folder / "index.sqlite") as db:
        db.row_factory = sqlite3.Row
        return db.execute(f"SELECT * FROM {table}").fetchall()


def only_folder(results: Path) -> Path:
    [folder] = list(results.iterdir())
    return folder


def test_a_tiny_spec_runs_end_to_end(tmp_path, engine):
    spec = write_spec(tmp_path)
    done = run_contio("run", spec, "--results-dir", tmp_path / "results")
    assert done.returncode == 0, done.stderr
    folder = only_folder(tmp_path / "results")
    assert re.fullmatch(r"tiny-\d{8}T\d{6}Z", folder.name)
    assert f"results: {folder}" in done.stdout
    assert "workloada" in done.stdout and "± 95% CI" in done.stdout
    # The run ends with its HTML report (contio.report), a chart against threads in it.
    assert f"report: {folder / 'report.html'}" in done.stdout
    assert 'data-chart="throughput-vs-threads"' in (folder / "report.html").read_text()

    assert (folder / "spec.yaml").read_text() == spec.read_text()
    assert json.loads((folder / "host.json").read_text())["engine_version"]
    [backend] = index_rows(folder, "backends")
    assert json.loads(backend["description"])["base"] == str(tmp_path / "data")

    # Cells run in a random order (docs/validity.md); each cell's phases in this order.
    phases = sorted(rows(folder / "repetitions.csv"), key=lambda r: int(r["cell_index"]))
    # Workload A writes, so every repetition starts from a fresh load (load.reuse: auto).
    assert [(r["cell_index"], r["phase"], r["threads"], r["repetition"]) for r in phases] == [
        ("1", "load", "1", "1"),
        ("1", "run", "1", "1"),
        ("1", "load", "1", "2"),
        ("1", "run", "1", "2"),
        ("2", "load", "1", "1"),
        ("2", "run", "2", "1"),
        ("2", "load", "1", "2"),
        ("2", "run", "2", "2"),
    ]
    assert {r["status"] for r in phases} == {"ok"}
    assert all(int(r["operations"]) == (200 if r["phase"] == "load" else 2000) for r in phases)

    summary = rows(folder / "summary.csv")
    assert [(r["threads"], r["repetitions"]) for r in summary] == [("1", "2"), ("2", "2")]
    one_thread = [float(r["steady_ops_per_sec"]) for r in phases[1:4:2]]
    assert float(summary[0]["throughput_ops_per_sec_mean"]) == pytest.approx(mean(one_thread))

    # Nothing of the data directories is left.
    assert list((tmp_path / "data").iterdir()) == []


def test_the_engines_text_output_parses_and_agrees_with_its_json(tmp_path, engine):
    done = run_contio("run", write_spec(tmp_path), "--results-dir", tmp_path / "results")
    assert done.returncode == 0, done.stderr
    raw = only_folder(tmp_path / "results") / "raw" / "cell002" / "s1-rep1"
    result = read_result(raw / "run-c1.json")
    assert result.threads == 2
    text = parse_ycsb_text((raw / "run-c1.txt").read_text())
    assert text.throughput_ops_per_sec == pytest.approx(result.throughput_ops_per_sec, rel=1e-3)
    for name, stats in result.operations_by_type.items():
        assert text.operations[name].operations == stats.count
        # YCSB prints no Return= line for CLEANUP (its JSON counterpart says OK).
        if name != "CLEANUP":
            assert text.operations[name].returns == stats.returns
        assert text.operations[name].latency_us["p99"] == stats.latency_us.p99


@pytest.mark.parametrize("target", ["lsm", "btree"])
def test_embedded_targets_keep_their_data_in_the_backend(tmp_path, engine, engine_targets, target):
    if not re.search(rf"^\s*{target}\b", engine_targets, re.MULTILINE):
        pytest.skip(f"this engine has no {target} target yet")
    spec = write_spec(
        tmp_path,
        targets=f"[{target}]",
        threads="[2]",
        properties="{recordcount: 200, operationcount: 2000, maxexecutiontime: 60}",
    )
    done = run_contio("run", spec, "--results-dir", tmp_path / "results")
    assert done.returncode == 0, done.stderr
    raw = only_folder(tmp_path / "results") / "raw" / "cell001"
    load = read_result(raw / "s1-rep1" / "load-c1.json")
    # The run phases' time limit never cuts the load short: every record is inserted.
    assert load.properties["maxexecutiontime"] == "0"
    assert load.operations_by_type["INSERT"].returns == {"OK": 200}
    result = read_result(raw / "s1-rep1" / "run-c1.json")
    assert result.status == "ok" and result.operations == 2000
    assert result.properties["maxexecutiontime"] == "60"
    assert "NOT_FOUND" not in result.operations_by_type["READ"].returns
    assert result.properties[f"{target}.dir"].startswith(str(tmp_path / "data"))
    assert list((tmp_path / "data").iterdir()) == []


def test_a_bad_spec_exits_2_naming_the_field(tmp_path):
    done = run_contio(
        "run", write_spec(tmp_path, targets="[null, lsmm]"), "--results-dir", tmp_path / "results"
    )
    assert done.returncode == 2
    assert "targets[1]: 'lsmm' is not a known target; allowed: null, lsm, btree" in done.stderr
    assert not (tmp_path / "results").exists()


def test_a_misspelt_engine_property_exits_2_before_anything_runs(tmp_path, engine):
    spec = write_spec(tmp_path, properties="{readproportoin: 0.5}")
    done = run_contio("run", spec, "--results-dir", tmp_path / "results")
    assert done.returncode == 2
    assert "readproportoin" in done.stderr
    assert not (tmp_path / "results").exists()
    assert list((tmp_path / "data").iterdir()) == []


def _children_of(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_an_interrupted_run_keeps_completed_results_and_leaves_nothing(tmp_path, engine):
    # A run phase far longer than the test: only the interrupt ends it.
    spec = write_spec(
        tmp_path,
        threads="[1]",
        repetitions="3",
        factors="{containers: [2]}",  # two engines at once: neither may outlive contio
        properties="{recordcount: 200, operationcount: 2000000000, maxexecutiontime: 600}",
    )
    results = tmp_path / "results"
    proc = contio("run", spec, "--results-dir", results)
    first_result = None
    deadline = time.monotonic() + 120
    while first_result is None and proc.poll() is None and time.monotonic() < deadline:
        found = list(results.glob("*/repetitions.csv"))
        first_result = found[0] if found else None
        time.sleep(0.05)  # polling for the file, not guessing a duration
    assert first_result is not None, proc.stderr.read() if proc.stderr else ""
    children = _children_of(proc.pid)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)

    assert proc.returncode == 128 + signal.SIGINT, err
    assert "interrupted" in err
    # The cell that was running says so: never left `running` after an abort.
    [cell] = index_rows(first_result.parent, "cells")
    assert (cell["status"], cell["reason"]) == ("interrupted", "interrupted by signal 2")
    kept = rows(first_result)
    assert kept and kept[0]["phase"] == "load" and kept[0]["status"] == "ok"
    assert read_result(first_result.parent / kept[0]["raw_json"]).operations == 200
    for child in children:
        assert not Path(f"/proc/{child}").exists(), f"child {child} outlived contio"
    assert list((tmp_path / "data").iterdir()) == []


def test_a_killed_engine_fails_its_cell_and_the_run_goes_on_with_metrics(tmp_path, engine):
    """The process runtime records a failed cell as the docker runtime does; the next
    cell runs, and its run rows carry the host's and its engine's per-second means."""
    spec = write_spec(
        tmp_path,
        threads="[1]",
        repetitions="1",
        factors="{properties: {maxexecutiontime: [600, 2]}}",
        properties="{recordcount: 200, operationcount: 0}",
    )
    results = tmp_path / "results"
    proc = contio("run", spec, "--results-dir", results)
    engines: list[int] = []
    deadline = time.monotonic() + 120
    while not engines and proc.poll() is None and time.monotonic() < deadline:
        if list(results.glob("*/raw/cell001/s1-rep1/run-c1.stderr")):  # the run phase began
            engines = [
                pid for pid in _children_of(proc.pid)
                if " run " in Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
            ]  # fmt: skip
        time.sleep(0.05)  # polling for the file, not guessing a duration
    assert engines, proc.stderr.read() if proc.stderr else ""
    os.kill(engines[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=300)

    assert proc.returncode == 1, err
    folder = only_folder(results)
    cells = index_rows(folder, "cells")
    assert [c["status"] for c in cells] == ["failed", "done"]
    assert "killed by signal 9" in cells[0]["reason"], cells[0]["reason"]
    assert re.search(r"failed: cell 1 \([^)]*\): repetition 1: run phase, container 1", out), out
    [run] = [r for r in index_rows(folder, "phases") if r["phase"] == "run"]
    assert run["cell_index"] == 2 and run["status"] == "ok"
    assert run["cpu_percent"] > 0 and run["disk_device"]
    assert run["client_cpu_percent"] > 0 and run["client_memory_bytes"] > 0
    assert run["server_cpu_percent"] is None  # no database server under this runtime
    assert list((tmp_path / "data").iterdir()) == []
