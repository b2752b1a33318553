"""The peers' output parsers, on real outputs captured from YCSB 0.17.0, sysbench and fio."""

from pathlib import Path

import pytest

from benchmarks.errors import SetupError
from benchmarks.parsers import (
    fio_rates,
    fio_read_iops,
    fio_read_total_ios,
    parse_go_ycsb_summary,
    parse_sysbench_fileio,
    parse_ycsb_summary,
    ycsb_throughput,
)

DATA = Path(__file__).parent.parent / "data" / "bench"


def test_ycsb_summary_of_a_real_basicdb_run():
    text = (DATA / "ycsb-0.17.0-basicdb-workloada.txt").read_text()
    summary = parse_ycsb_summary(text)
    assert ycsb_throughput(text) == pytest.approx(588235.2941176471)
    assert summary[("READ", "Operations")] + summary[("UPDATE", "Operations")] == 100_000
    assert summary[("UPDATE", "Return=OK")] == 50221


def test_ycsb_without_summary_is_a_setup_error():
    with pytest.raises(SetupError, match="Throughput"):
        ycsb_throughput("Exception in thread main\n[READ], Operations, 3\n")


def test_sysbench_fileio_rates():
    rates = parse_sysbench_fileio((DATA / "sysbench-1.0.20-fileio-rndrw.txt").read_text())
    assert (rates.reads_per_sec, rates.writes_per_sec, rates.fsyncs_per_sec) == (
        748.78,
        499.18,
        1600.51,
    )


def test_sysbench_output_cut_short_names_what_is_missing():
    with pytest.raises(SetupError, match="writes/s"):
        parse_sysbench_fileio("File operations:\n    reads/s:  10.0\n    fsyncs/s:  1.0\n")


def test_fio_json_read_iops_sums_jobs():
    text = (DATA / "fio-3.33-randread-psync-2jobs.json").read_text()
    assert fio_read_iops(text) == pytest.approx(45985.007496)
    # fio may print warnings before the JSON document.
    assert fio_read_iops("fio: warning\n" + text) == pytest.approx(45985.007496)
    assert fio_read_total_ios(text) == 92016


def test_fio_garbage_is_a_setup_error():
    with pytest.raises(SetupError, match="fio"):
        fio_read_iops("fio: no such file\n")


def test_fio_rates_per_direction():
    text = (DATA / "fio-3.33-randread-psync-2jobs.json").read_text()
    read = fio_rates(text, "read")
    assert (read.iops, read.bytes_per_sec, read.total_ios) == (
        pytest.approx(45985.007496),
        188354590,
        92016,
    )
    write = fio_rates(text, "write")  # a read job: fio reports the write side as zeros
    assert (write.iops, write.bytes_per_sec, write.total_ios) == (0, 0, 0)
    with pytest.raises(SetupError, match="fio"):
        fio_rates(text, "trim-ish")


def test_go_ycsb_summary_of_a_real_redis_run():
    text = (DATA / "go-ycsb-1.0.3-redis-workloada-16threads.txt").read_text()
    summary = parse_go_ycsb_summary(text)
    assert set(summary) == {"READ", "UPDATE", "TOTAL"}
    assert summary["TOTAL"]["Count"] == 40_000
    assert summary["TOTAL"]["OPS"] == pytest.approx(7129.2)
    assert summary["READ"]["Count"] + summary["UPDATE"]["Count"] == 40_000
    assert summary["UPDATE"]["99th(us)"] == 32271


def test_go_ycsb_summary_of_a_read_only_run_and_a_load():
    run = parse_go_ycsb_summary((DATA / "go-ycsb-1.0.3-redis-workloadc-1thread.txt").read_text())
    assert set(run) == {"READ", "TOTAL"}
    assert run["TOTAL"]["OPS"] == pytest.approx(3538.0)
    load = parse_go_ycsb_summary((DATA / "go-ycsb-1.0.3-redis-load.txt").read_text())
    assert load["INSERT"]["Count"] == 10_000


def test_go_ycsb_reads_only_the_final_block_and_keeps_error_lines():
    periodic = "READ   - Takes(s): 10.0, Count: 5, OPS: 0.5, Avg(us): 1\n"
    final = (
        "Run finished, takes 20s\n"
        "READ   - Takes(s): 20.0, Count: 8, OPS: 0.4, Avg(us): 1\n"
        "READ_ERROR - Takes(s): 20.0, Count: 2, OPS: 0.1, Avg(us): 1\n"
        "TOTAL  - Takes(s): 20.0, Count: 8, OPS: 0.4, Avg(us): 1\n"
    )
    summary = parse_go_ycsb_summary(periodic + final)
    assert summary["READ"]["Count"] == 8
    assert summary["READ_ERROR"]["Count"] == 2


def test_go_ycsb_without_its_final_block_is_a_setup_error():
    with pytest.raises(SetupError, match="Run finished"):
        parse_go_ycsb_summary("READ   - Takes(s): 10.0, Count: 5, OPS: 0.5\n")
    with pytest.raises(SetupError, match="TOTAL"):
        parse_go_ycsb_summary("Run finished, takes 1s\npanic: connection refused\n")
