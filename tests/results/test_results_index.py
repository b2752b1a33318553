"""The SQLite index: completed repetitions are written once, and load() has one row per
cell × repetition × container."""

from __future__ import annotations

import sqlite3

import pytest

from contio.results.folder import load
from contio.results.index import ResultsIndex


def phase(cell: str, repetition: int, container: int, ops: float, status: str = "ok") -> dict:
    return {
        "session": 1,
        "cell_key": cell,
        "cell_index": 1,
        "phase": "run",
        "repetition": repetition,
        "container": container,
        "target": "null",
        "workload": "workloadc",
        "threads": 1,
        "status": status,
        "operations": 10,
        "failed_operations": 0,
        "runtime_ms": 1000.0,
        "throughput_ops_per_sec": ops,
        "steady_ops_per_sec": ops,
        "warmup_excluded_s": 0.0,
        "p95_latency_us": 1.0,
        "p99_latency_us": 2.0,
        "latency_source": "merged",
        "started_at": "2026-11-23T00:00:00Z",
        "raw_json": f"raw/{repetition}-{container}.json",
    }


@pytest.fixture
def index(tmp_path):
    index = ResultsIndex.create(tmp_path)
    index.add_cells([("k", 1, "cell one", {"target": "null", "containers": 2, "threads": 1}, 2)])
    yield index
    index.close()


def test_a_completed_repetition_cannot_be_written_twice(index):
    index.add_phase(phase("k", 1, 1, 100.0))
    with pytest.raises(sqlite3.IntegrityError):
        index.add_phase(phase("k", 1, 1, 999.0))
    index.add_phase(phase("k", 2, 1, 5.0, status="interrupted"))  # not completed: allowed
    index.add_phase(phase("k", 2, 1, 110.0))
    assert [p["throughput_ops_per_sec"] for p in index.phases("run")] == [100.0, 5.0, 110.0]


def test_only_repetitions_with_every_container_count(index):
    index.add_phase(phase("k", 1, 1, 100.0))
    index.add_phase(phase("k", 1, 2, 50.0))
    index.add_phase(phase("k", 2, 1, 100.0))  # container 2 never finished
    assert index.completed_throughputs("k", 2) == [150.0]
    assert index.last_repetition("k") == 2


def test_cell_state_and_meta_survive_reopening(index, tmp_path):
    index.set_cell_status("k", "skipped", "no NFS")
    index.set_meta("profile", "tiny")
    index.close()
    again = ResultsIndex.open(tmp_path)
    assert again.cell_status("k") == "skipped"
    assert again.cells()[0]["reason"] == "no NFS"
    assert again.meta("profile") == "tiny"
    assert again.new_session() == 1 and again.new_session() == 2
    again.close()


def test_load_returns_one_row_per_cell_repetition_and_container(index, tmp_path):
    for rep in (1, 2):
        for container in (1, 2):
            index.add_phase(phase("k", rep, container, 10.0 * rep + container))
    frame = load(tmp_path)
    assert len(frame) == 4
    assert list(frame[["repetition", "container"]].itertuples(index=False, name=None)) == [
        (1, 1),
        (1, 2),
        (2, 1),
        (2, 2),
    ]
    assert set(frame["containers"]) == {2} and set(frame["target"]) == {"null"}
    assert frame["steady_ops_per_sec"].sum() == pytest.approx(11 + 12 + 21 + 22)
