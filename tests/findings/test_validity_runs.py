"""The data-in-cache check on real runs built to fail and to pass it: a small file read
through the page cache, and direct reads from a loop device."""

from __future__ import annotations

import os
import shutil

import pytest

from contio.experiment.load import parse_spec_text
from contio.findings.validity import data_in_cache
from contio.results.folder import load
from contio.run.runner import Runner


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
