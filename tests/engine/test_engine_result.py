"""Reading the engine's result document and mapping its exit codes."""

import json

import pytest

from contio.engine.invocation import interpret_exit, ycsb_args
from contio.engine.result import parse_result, read_result
from contio.errors import EngineError, EngineOutputError, EngineUsageError, UsageError
from engine_documents import document, operation


def test_documented_layout_parses():
    doc = document({"READ": operation([10, 20, 30]), "READ-FAILED": operation([5])})
    result = parse_result(json.dumps(doc), "doc")
    assert result.phase == "run" and result.status == "ok"
    assert result.operations_by_type["READ"].count == 3
    assert result.operations_by_type["READ"].latency_us.max == 30
    assert result.failed_operations == 1


def test_another_schema_is_refused():
    doc = document({}) | {"schema": "contio.engine.result/2"}
    with pytest.raises(EngineOutputError, match="result/2"):
        parse_result(json.dumps(doc), "doc")


def test_a_missing_field_is_named():
    doc = document({})
    del doc["throughput_ops_per_sec"]
    with pytest.raises(EngineOutputError, match="throughput_ops_per_sec"):
        parse_result(json.dumps(doc), "doc")


def test_exit_2_is_a_usage_error_with_the_engines_message(tmp_path):
    stderr = "error: unknown property 'readproportoin' (did you mean 'readproportion'?)\n"
    with pytest.raises(EngineUsageError, match="did you mean 'readproportion'") as info:
        interpret_exit(2, stderr, tmp_path / "none.json")
    assert isinstance(info.value, UsageError)


def test_exit_0_reads_the_document(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document({"READ": operation([1, 2])})))
    assert interpret_exit(0, "", path).operations == 2


def test_exit_1_says_why_the_phase_failed(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document({}, status="failed")))
    with pytest.raises(EngineError, match="failed: stopped") as info:
        interpret_exit(1, "", path)
    assert info.value.exit_code == 1


def test_exit_0_without_a_document_is_an_output_error(tmp_path):
    with pytest.raises(EngineOutputError, match="no result document"):
        read_result(tmp_path / "missing.json")


def test_killed_by_a_signal(tmp_path):
    with pytest.raises(EngineError, match="signal 9"):
        interpret_exit(-9, "", tmp_path / "none.json")


def test_arguments_are_an_argv_list_in_order(tmp_path):
    args = ycsb_args(
        "load", "lsm", [tmp_path / "w"], {"recordcount": "10", "lsm.dir": "/d x"}, 2, tmp_path / "o"
    )
    assert args == [
        "load",
        "lsm",
        "-P",
        str(tmp_path / "w"),
        "-p",
        "recordcount=10",
        "-p",
        "lsm.dir=/d x",
        "-threads",
        "2",
        "-json",
        str(tmp_path / "o"),
    ]
