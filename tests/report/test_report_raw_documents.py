"""What the report reads from the engine's raw documents: read/write rates, time series."""

from __future__ import annotations

import pytest
from report_fixtures import results_folder

from contio.engine_result import read_result
from contio.report.raw_documents import cell_time_series, operation_rates
from contio.results import load


def test_reads_and_writes_split_by_what_the_workload_does(tmp_path):
    folder = results_folder("scaling", tmp_path)
    runs = load(folder)
    rated = operation_rates(folder, runs)
    for _, row in rated.iterrows():
        rate = row["operations"] / (row["runtime_ms"] / 1000)
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
