"""The go-tpc comparison: output parsing on a captured run, engine detection, pending rows."""

from pathlib import Path

import pytest

from benchmarks.errors import SetupError
from benchmarks.go_tpc import (
    PENDING,
    case,
    comparison_rows,
    completed_transactions,
    engine_has_tpcc,
)
from benchmarks.parsers import parse_go_tpc_run
from benchmarks.report import Sample

DATA = Path(__file__).parent.parent / "data" / "bench"

USAGE_WITHOUT = (
    "usage: contio-engine load|run TARGET [-P FILE]... | contio-engine sysbench fileio "
    "[OPTIONS] prepare|run|cleanup | contio-engine fio JOBFILE | contio-engine targets"
)
USAGE_WITH = USAGE_WITHOUT + (
    " | contio-engine tpcc load|run|check mysql|postgres [-P FILE]... [-threads N]"
)


def test_go_tpc_run_summary_of_a_real_mariadb_run():
    summary = parse_go_tpc_run((DATA / "go-tpc-1.0.7-tpcc-run-mariadb.txt").read_text())
    assert summary.tpmc == pytest.approx(2837.4)
    assert set(summary.by_type) == {
        "DELIVERY", "NEW_ORDER", "NEW_ORDER_ERR", "ORDER_STATUS", "PAYMENT", "STOCK_LEVEL",
    }  # fmt: skip
    # The [Summary] counts, not the periodic [Current] ones: 94 + 937 + 77 + 905 + 112.
    assert summary.transactions == 2125
    assert summary.failed == 3


def test_go_tpc_run_cut_short_is_a_setup_error():
    text = "[Current] NEW_ORDER - Takes(s): 9.8, Count: 474, TPM: 2898.5\n"
    with pytest.raises(SetupError, match="tpmC"):
        parse_go_tpc_run(text)


def test_the_tpcc_command_is_detected_in_the_engine_usage():
    assert not engine_has_tpcc(USAGE_WITHOUT)
    assert engine_has_tpcc(USAGE_WITH)
    assert not engine_has_tpcc("contio-engine: unknown command 'tpcc'")


def _sample(tool: str, tpmc: float, client_us: float) -> Sample:
    meta = {"client_cpu_us_per_txn": client_us, "server_cpu_us_per_txn": 100.0}
    return Sample(tool, case(), "tpmC", tpmc, "tpmC", meta)


def test_pending_contio_leaves_its_cells_empty_and_unjudged():
    rows = comparison_rows([_sample("go-tpc", 2800, 1900), _sample("go-tpc", 3000, 2100)], PENDING)
    tpmc, cpu, _ = rows
    assert (tpmc.contio, tpmc.peer, tpmc.passed) == (None, 2900, None)
    assert (cpu.contio, cpu.peer, cpu.passed) == (None, 2000, None)
    assert "pending" in tpmc.goal and "pending" in cpu.goal


def test_both_goals_are_judged_on_medians():
    samples = [
        _sample("contio", 2700, 900),
        _sample("go-tpc", 2800, 2000),
        _sample("contio", 2600, 1000),
        _sample("go-tpc", 2900, 1900),
        _sample("contio", 2800, 950),
        _sample("go-tpc", 3000, 2100),
    ]
    tpmc, cpu, server = comparison_rows(samples, None)
    assert tpmc.ratio == pytest.approx(2700 / 2900)
    assert tpmc.passed is False  # 0.93 < 0.95
    assert (cpu.contio, cpu.peer, cpu.passed) == (950, 2000, True)
    assert server.passed is None


def test_contio_transactions_are_the_five_types_without_the_failed_ones():
    document = {
        "operations_by_type": {
            "NEW_ORDER": {"count": 45},
            "NEW_ORDER-FAILED": {"count": 2},
            "PAYMENT": {"count": 43},
            "ORDER_STATUS": {"count": 4},
            "DELIVERY": {"count": 4},
            "STOCK_LEVEL": {"count": 3},
        }
    }
    assert completed_transactions(document) == 99
    assert completed_transactions({"operations_by_type": {}}) == 0
