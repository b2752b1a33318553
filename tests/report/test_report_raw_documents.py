"""What the report reads from the engine's raw documents: read/write rates, time series."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from report_fixtures import DATA, results_folder

from contio.engine_result import read_result
from contio.report.raw_documents import cell_time_series, operation_rates, repetition_events
from contio.results import load


def test_reads_and_writes_split_by_what_the_workload_does(tmp_path):
    folder = results_folder("scaling", tmp_path)
    runs = load(folder)
    rated = operation_rates(folder, runs)
    assert (rated["warmup_excluded_s"] == 1).all()  # the spec's warm-up is left out
    for _, row in rated.iterrows():
        rate = row["steady_ops_per_sec"]
        if row["workload"] == "workloadc":  # 100% reads
            assert row["reads_per_sec"] == pytest.approx(rate) and row["writes_per_sec"] == 0
        else:  # heavy-update: 100% updates
            assert row["writes_per_sec"] == pytest.approx(rate) and row["reads_per_sec"] == 0


def test_a_cells_time_series_sums_its_containers_per_second(tmp_path):
    folder = results_folder("scaling", tmp_path)
    runs = load(folder)
    cell = runs[(runs["containers"] == 2) & (runs["mix"] == "read+write")]
    phases = cell[(cell["repetition"] == 1)]
    assert len(phases) == 4  # two containers of each application
    series = cell_time_series(folder, phases).set_index("second")
    docs = [read_result(folder / raw) for raw in phases["raw_json"]]
    first = sum(next(e["ops"] for e in d.timeseries if e["t"] == 1) for d in docs)
    assert series.loc[1, "ops_per_s"] == pytest.approx(first)
    assert (series["ops_per_s"] > 0).all() and (series["p99_ms"] >= 0).all()


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@pytest.mark.parametrize("repetition", [1, 2])
def test_events_are_read_from_where_the_runner_writes_them(tmp_path, repetition):
    # tests/data/report/events was recorded by a real run (record.py events): the runner
    # wrote raw/cell001/s1-rep<r>/events.json beside the run's engine document.
    folder = results_folder("events", tmp_path)
    runs = load(folder)
    phases = runs[runs["repetition"] == repetition]
    raw = folder / phases["raw_json"].iloc[0]
    [record] = json.loads((raw.parent / "events.json").read_text())
    shift = (
        _utc(record["schedule_started_at"]) - _utc(phases["started_at"].iloc[0])
    ).total_seconds()
    assert -1 < shift < 0  # the schedule starts just before the engine's clock
    events = repetition_events(folder, phases)
    assert events == [
        pytest.approx((record["stopped_at"] + shift, "node 2 stopped")),
        pytest.approx((record["restarted_at"] + shift, "node 2 restarted")),
        pytest.approx((record["healed_at"] + shift, "node 2 healed")),
    ]


def test_a_repetition_without_events_has_none(tmp_path):
    folder = results_folder("scaling", tmp_path)
    runs = load(folder)
    assert repetition_events(folder, runs[runs["repetition"] == 1]) == []
    assert not list((DATA / "scaling").rglob("events.json"))
