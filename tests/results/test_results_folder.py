"""The results folder: one per experiment, never overwritten; records survive a round trip."""

import json
from datetime import datetime, timezone

import pytest

from contio.engine.result import parse_result
from contio.errors import ResultsFolderError
from contio.results.folder import ResultsFolder, read_records
from contio.results.phase_record import PhaseRecord
from engine_documents import document, operation

NOW = datetime(2026, 11, 22, 22, 30, 5, tzinfo=timezone.utc)


def test_folder_name_is_the_experiment_and_utc_time(tmp_path):
    folder = ResultsFolder.create(tmp_path / "results", "default", now=NOW)
    assert folder.path == tmp_path / "results" / "default-20261122T223005Z"
    assert folder.path.is_dir()


def test_a_second_experiment_in_the_same_second_gets_its_own_folder(tmp_path):
    first = ResultsFolder.create(tmp_path, "default", now=NOW)
    first.write_text("spec.yaml", "name: default\n")
    second = ResultsFolder.create(tmp_path, "default", now=NOW)
    third = ResultsFolder.create(tmp_path, "default", now=NOW)
    assert [second.path.name, third.path.name] == [
        "default-20261122T223005Z-2",
        "default-20261122T223005Z-3",
    ]
    assert (first.path / "spec.yaml").read_text() == "name: default\n"


def test_files_are_never_replaced(tmp_path):
    folder = ResultsFolder.create(tmp_path, "x", now=NOW)
    folder.write_json("host.json", {"a": 1})
    with pytest.raises(ResultsFolderError, match="never overwritten"):
        folder.write_json("host.json", {"a": 2})
    assert json.loads((folder.path / "host.json").read_text()) == {"a": 1}
    files = folder.phase_files("cell001", 1, 1, "load", 1)
    files.json.write_text("{}")
    with pytest.raises(ResultsFolderError, match="never overwritten"):
        folder.phase_files("cell001", 1, 1, "load", 1)
    # The next session (a resumed run) writes beside it, never over it.
    assert folder.phase_files("cell001", 2, 1, "load", 1).json != files.json
    folder.write_rows("summary.csv", [{"a": 1}])
    with pytest.raises(ResultsFolderError, match="never overwritten"):
        folder.write_rows("summary.csv", [{"a": 2}])


def test_records_append_and_read_back(tmp_path):
    folder = ResultsFolder.create(tmp_path, "x", now=NOW)
    records = []
    for repetition, throughput in enumerate([1000.5, 1100.25], start=1):
        doc = document({"READ": operation([10, 20, 30])}, throughput=throughput)
        result = parse_result(json.dumps(doc), "doc")
        record = PhaseRecord.from_result(
            result,
            cell_key="{}",
            cell_index=1,
            session=1,
            container=1,
            workload="workloada",
            repetition=repetition,
            raw_json="raw/a.json",
        )
        folder.append_record(record)
        records.append(record)
    assert read_records(folder.path) == records
    assert records[1].throughput_ops_per_sec == 1100.25
    assert records[0].p99_latency_us == 30
