"""`contio export`: the run phases as CSV, Parquet and JSON, and `contio report` on the CLI."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pandas as pd
import pytest
from report_fixtures import results_folder

from ycsb_text import parse_ycsb_text

READERS = {
    "csv": pd.read_csv,
    "parquet": pd.read_parquet,
    "json": lambda path: pd.read_json(path, orient="records"),
}


def contio(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contio", *map(str, args)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_export_holds_every_run_phase_with_its_levels(tmp_path, fmt):
    folder = results_folder("scaling", tmp_path)
    done = contio("export", folder, "--format", fmt)
    assert done.returncode == 0, done.stderr
    frame = READERS[fmt](folder / f"runs.{fmt}")
    db = sqlite3.connect(folder / "index.sqlite")
    (runs,) = db.execute("SELECT COUNT(*) FROM phases WHERE phase = 'run'").fetchone()
    (ops,) = db.execute("SELECT SUM(steady_ops_per_sec) FROM phases WHERE phase = 'run'").fetchone()
    db.close()
    assert len(frame) == runs
    assert frame["steady_ops_per_sec"].sum() == pytest.approx(ops)
    assert {"mix", "containers", "threads", "repetition", "container"} <= set(frame.columns)
    assert set(frame["mix"]) == {"read", "write", "read+write"}


def test_the_ycsb_text_summary_of_every_phase_stays_available(tmp_path):
    folder = results_folder("backends", tmp_path)
    assert contio("export", folder, "--format", "csv").returncode == 0
    frame = pd.read_csv(folder / "runs.csv")
    for text_path, throughput in zip(
        frame["ycsb_text"], frame["throughput_ops_per_sec"], strict=True
    ):
        summary = parse_ycsb_text((folder / text_path).read_text())
        assert summary.throughput_ops_per_sec == pytest.approx(throughput, rel=1e-3)


def test_an_unknown_format_exits_2_naming_the_choices(tmp_path):
    folder = results_folder("isolation", tmp_path)
    done = contio("export", folder, "--format", "xlsx")
    assert done.returncode == 2
    assert "csv" in done.stderr and "parquet" in done.stderr


def test_report_cli_writes_the_page_into_the_folder(tmp_path):
    folder = results_folder("isolation", tmp_path)
    done = contio("report", folder)
    assert done.returncode == 0, done.stderr
    assert f"report: {folder / 'report.html'}" in done.stdout
    assert (folder / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert contio("report", tmp_path).returncode == 2
