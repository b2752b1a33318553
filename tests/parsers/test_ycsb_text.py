"""The YCSB text parser on output captured from YCSB 0.17.0 (see tests/data/ycsb/README.md)."""

from pathlib import Path

import pytest

from ycsb_text import YcsbTextError, parse_ycsb_text

DATA = Path(__file__).parent.parent / "data" / "ycsb"


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_run_phase_of_workload_a():
    summary = parse_ycsb_text(read("ycsb-0.17.0-run-a.txt"))
    assert summary.runtime_ms == 165
    assert summary.throughput_ops_per_sec == pytest.approx(30303.030303030304)
    assert list(summary.operations) == ["READ", "CLEANUP", "UPDATE"]
    read_op = summary.operations["READ"]
    assert read_op.operations == 2513
    assert read_op.returns == {"OK": 2513}
    assert read_op.latency_us == {
        "mean": pytest.approx(0.016713091922005572),
        "min": 0,
        "max": 7,
        "p95": 0,
        "p99": 0,
    }
    update = summary.operations["UPDATE"]
    assert update.operations + read_op.operations == 5000
    assert update.latency_us["max"] == 321
    # The JVM's garbage-collector counters are kept as raw sections, not operations.
    assert summary.sections["TOTAL_GCs"] == {"Count": 0}


def test_load_phase():
    summary = parse_ycsb_text(read("ycsb-0.17.0-load-a.txt"))
    assert summary.operations["INSERT"].operations == 1000
    assert summary.operations["INSERT"].returns == {"OK": 1000}
    assert summary.operations["INSERT"].latency_us["p99"] == 2


def test_every_operation_type_and_intended_latency():
    summary = parse_ycsb_text(read("ycsb-0.17.0-run-mixed-target.txt"))
    names = set(summary.operations)
    assert {"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"} <= names
    assert {"Intended-READ", "Intended-UPDATE", "Intended-SCAN"} <= names
    # Read-modify-write has no Return= line of its own: its read and update count there.
    assert summary.operations["READ-MODIFY-WRITE"].returns == {}
    assert summary.operations["Intended-READ"].latency_us["p95"] == 18815
    counted = sum(summary.operations[n].operations for n in ("READ", "UPDATE", "INSERT", "SCAN"))
    assert counted == 2476 + 1943 + 563 + 1015


def test_status_lines_and_banners_are_skipped():
    summary = parse_ycsb_text(read("ycsb-0.17.0-run-a-with-status.txt"))
    assert summary.throughput_ops_per_sec == pytest.approx(37593.984962406015)
    assert summary.operations["READ"].operations + summary.operations["UPDATE"].operations == 5000


def test_text_without_a_summary_is_refused():
    with pytest.raises(YcsbTextError, match="RunTime"):
        parse_ycsb_text("YCSB Client 0.17.0\nLoading workload...\n")


def test_a_value_that_is_not_a_number_names_its_line():
    with pytest.raises(YcsbTextError, match="line 2"):
        parse_ycsb_text("[OVERALL], RunTime(ms), 10\n[READ], Operations, many\n")
