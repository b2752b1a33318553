"""The data-in-cache check on real runs built to fail and to pass it: a small file read
through the page cache, and direct reads from a loop device; the headline of a run that
fails it carries the caveat."""

from __future__ import annotations

import os
import shutil

import pytest

from contio.cli.tables import headline
from contio.experiment.load import parse_spec_text
from contio.findings.caveats import RunChecks
from contio.findings.validity import data_in_cache
from contio.report import conclusions as report_conclusions
from contio.report.experiment import Experiment
from contio.results.folder import load
from contio.results.index import ResultsIndex
from contio.results.summary import summarize
from contio.run.runner import Runner
from contio.stats.backend_comparison import Analysis


def run_one_cell(tmp_path, backend: str, workload: str):
    text = f"""
name: cache
backend: {backend}
factors:
  workload: [{workload}]
stop: {{rule: fixed-time, seconds: 2, repetitions: 1}}
"""
    spec = parse_spec_text(text, "cache.yaml", tmp_path)
    outcome = Runner(spec, text, tmp_path / "out").run()
    rows = load(outcome.folder.path)
    assert list(rows["status"]) == ["ok"]
    return data_in_cache(str(rows["cell_key"][0]), rows)


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
