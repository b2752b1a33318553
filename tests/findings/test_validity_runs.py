"""The data-in-cache and cpu-saturated checks on real runs built to fail and to pass
them: a small file read through the page cache, and direct reads from a loop device;
engine threads spinning on the null target on every core, and one thread that mostly
sleeps."""

from __future__ import annotations

import os
import shutil

import pytest

from contio.experiment.load import parse_spec_text
from contio.findings.validity import check_cells, data_in_cache, folder_meta
from contio.results.folder import load
from contio.run.runner import Runner


def run_rows(tmp_path, text: str):
    spec = parse_spec_text(text, "cell.yaml", tmp_path)
    outcome = Runner(spec, text, tmp_path / "out").run()
    rows = load(outcome.folder.path)
    assert set(rows["status"]) == {"ok"}
    return rows, outcome.folder.path


def run_one_cell(tmp_path, backend: str, workload: str):
    text = f"""
name: cache
backend: {backend}
factors:
  workload: [{workload}]
stop: {{rule: fixed-time, seconds: 2, repetitions: 1}}
"""
    rows, _ = run_rows(tmp_path, text)
    return data_in_cache(str(rows["cell_key"].iloc[0]), rows)


def cpu_check(tmp_path, threads: int, delay_us: int):
    text = f"""
name: cpu
factors: {{target: [null], workload: [workloadc], threads: [{threads}]}}
stop: {{rule: fixed-time, seconds: 3, repetitions: 1}}
properties: {{recordcount: 100, null.delay_us: {delay_us}}}
"""
    rows, folder = run_rows(tmp_path, text)
    # As `contio results` and the report check a folder.
    [check] = [c for c in check_cells(rows, folder_meta(folder)) if c.name == "cpu-saturated"]
    return check


def test_engine_threads_spinning_on_every_core_are_flagged(tmp_path, engine):
    # The null target answers at once: each thread keeps a core busy.
    check = cpu_check(tmp_path, threads=2 * (os.cpu_count() or 1), delay_us=0)
    assert check.passed is False, check.reason
    assert check.measured["process_cpu_percent_of_cores"] >= 90, check.reason
    assert "fewer threads or containers" in check.reason


def test_one_mostly_sleeping_thread_is_not(tmp_path, engine):
    # 20 ms per operation: about 50 operations/s, next to no CPU.
    check = cpu_check(tmp_path, threads=1, delay_us=20_000)
    assert check.measured["process_cpu_percent_of_cores"] < 10, check.reason
    if check.measured["host_cpu_percent"] < 90:  # a quiet machine, as in `make test`
        assert check.passed is True, check.reason
    else:  # other work on the machine: flagged, and said to be someone else's
        assert check.passed is False
        assert "other processes kept the CPU busy" in check.reason


def test_a_small_file_read_through_the_page_cache_is_flagged(tmp_path, engine):
    data = tmp_path / "data"
    data.mkdir()
    check = run_one_cell(
        tmp_path,
        f"{{type: local-dir, path: {data}}}",
        "{kind: sysbench, options: {file-test-mode: rndrd, file-total-size: 4M, file-num: 1}}",
    )
    assert check.passed is False, check.reason
    assert check.measured["device_read_fraction"] < 0.10
    assert "page cache" in check.reason


def test_direct_reads_from_a_loop_device_are_not(tmp_path, engine):
    if os.geteuid() != 0 or shutil.which("mkfs.ext4") is None:
        pytest.skip("needs root and mkfs.ext4 (a loop device)")
    check = run_one_cell(
        tmp_path,
        "{type: local, mode: device, device: loop, format: ext4, loop_size: 64MiB}",
        "{kind: fio, job: {rw: randread, bs: 64k, size: 16m, direct: 1, ioengine: psync}}",
    )
    assert check.passed is True, check.reason
    assert check.measured["device_read_fraction"] > 0.5
