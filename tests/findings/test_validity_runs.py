"""The data-in-cache and cpu-saturated checks on real runs built to fail and to pass
them: a small file read through the page cache, and direct reads from a loop device;
engine threads spinning on the null target on every core, and one thread that mostly
sleeps; the headline of a run that fails a check carries the caveat."""

from __future__ import annotations

import os
import shutil

import pytest

from contio.cli.tables import headline
from contio.experiment.load import parse_spec_text
from contio.findings.caveats import RunChecks
from contio.findings.validity import check_cells, data_in_cache, folder_meta
from contio.report import conclusions as report_conclusions
from contio.report.experiment import Experiment
from contio.results.folder import load
from contio.results.index import ResultsIndex
from contio.results.summary import summarize
from contio.run.runner import Runner
from contio.stats.backend_comparison import Analysis


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
    assert "the cell measured the CPU, not storage" in check.reason
    # The engine itself kept at least half a core busy (on a busy machine the
    # scheduler shares the rest with other work, which the reason then names).
    assert check.measured["client_cpu_percent"] >= 50, check.reason


def test_one_mostly_sleeping_thread_is_not(tmp_path, engine):
    # 20 ms per operation: about 50 operations/s, next to no CPU.
    check = cpu_check(tmp_path, threads=1, delay_us=20_000)
    # What the run measured: the engine barely used a core.
    assert check.measured["process_cpu_percent_of_cores"] < 10, check.reason
    # So the cell is never what saturated the CPU: it passes, or, when other work kept
    # the host busy meanwhile, that work is named (the rule itself, on constructed
    # samples: test_validity.py's cpu tests).
    assert "fewer threads or containers" not in check.reason, check.reason
    assert check.passed is True or "other processes kept the CPU busy" in check.reason


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


def test_the_headline_of_a_run_whose_cells_read_the_page_cache_says_it_is_not_valid(
    tmp_path, engine
):
    # Two directories of this host, one small file read through the page cache in each:
    # the headline compares them, and both cells measured the page cache.
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    text = f"""
name: cached
backends:
  a: {{type: local-dir, path: {tmp_path / "a"}}}
  b: {{type: local-dir, path: {tmp_path / "b"}}}
factors:
  backend: [a, b]
  workload:
    - {{kind: sysbench, options: {{file-test-mode: rndrd, file-total-size: 4M, file-num: 1}}}}
stop: {{rule: fixed-time, seconds: 1, repetitions: 2}}
"""
    spec = parse_spec_text(text, "cached.yaml", tmp_path)
    folder = Runner(spec, text, tmp_path / "out").run().folder.path
    checks = RunChecks.of_folder(folder)
    assert {c.passed for c in checks.checks if c.name == "data-in-cache"} == {False}
    index = ResultsIndex.open(folder)
    try:
        summaries = summarize(index)
    finally:
        index.close()
    said = headline(summaries, Analysis(), checks)
    assert said is not None and said.startswith(("Largest significant", "No significant"))
    assert "(not valid here: " in said, said
    assert "both cells measured the page cache, not the device" in said, said
    assert headline(summaries, Analysis()) is not None  # without checks: no caveat
    assert "not valid here" not in str(headline(summaries, Analysis()))
    # The report states the same headline, with the same caveat.
    report_headline = report_conclusions.headline(Experiment.read(folder))
    assert report_headline == said
