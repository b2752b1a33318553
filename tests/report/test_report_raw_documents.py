"""What the report reads from the engine's raw documents: read/write rates, time series."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from report_fixtures import DATA, results_folder
from test_report_figures import path_moves

from contio.engine.result import read_result
from contio.report.detail_sections import time_series_section
from contio.report.experiment import Experiment
from contio.report.raw_documents import cell_time_series, operation_rates, repetition_events
from contio.results.folder import load


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


def test_a_second_without_operations_has_no_p99_and_the_chart_leaves_a_gap(tmp_path):
    # The recorded node stop did not starve the writer; a real outage does. Seconds 6-8 of
    # repetition 2 are rewritten as the engine records a second in which nothing
    # completed (ops 0, no operation type: `SecondSummary::default`).
    folder = results_folder("events", tmp_path)
    runs = load(folder)
    phases = runs[runs["repetition"] == 2]
    raw = folder / phases["raw_json"].iloc[0]
    doc = json.loads(raw.read_text())
    for entry in doc["timeseries"]:
        if 6 <= entry["t"] <= 8:
            entry["ops"], entry["by_type"] = 0, {}
    raw.write_text(json.dumps(doc))
    series = cell_time_series(folder, phases).set_index("second")
    outage = series.loc[6:8]
    assert (outage["ops_per_s"] == 0).all()
    assert outage["p99_ms"].isna().all()  # no latency, rather than a latency of 0
    assert (series.drop(index=[6, 7, 8])["p99_ms"] > 0).all()
    [block] = time_series_section(Experiment.read(folder)).blocks
    svg = block[block.index("<svg") : block.index("</svg>") + 6]
    assert path_moves(svg, "p99-latency") == 2  # the line stops at 5 s, resumes at 9 s
