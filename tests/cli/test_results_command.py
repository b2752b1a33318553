"""`contio results DIR`: the per-cell table, the backends against the baseline with the
spec's t-test, and cells the runner recorded as failed — on recorded results folders."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

RECORDED = Path(__file__).resolve().parents[1] / "data" / "report"
INJECTED = "<script>alert(1)</script>"


def working_copy(name: str, into: Path) -> Path:
    """A copy of a recorded folder of tests/data/report with its index restored."""
    folder = into / name
    shutil.copytree(RECORDED / name, folder)
    db = sqlite3.connect(folder / "index.sqlite")
    db.executescript((folder / "index.sql").read_text(encoding="utf-8"))
    db.close()
    return folder


def results(folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "contio", "results", str(folder)],
        capture_output=True, text=True, timeout=120, check=False, env={**os.environ, "COLUMNS": "250"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_backends_are_compared_with_the_test_and_baseline_the_spec_names(tmp_path):
    folder = working_copy("backends", tmp_path)
    assert "backends against local (Welch t-test)" in results(folder)
    spec = json.loads((folder / "spec.json").read_text())
    spec["analysis"] = {"t_test": "paired", "baseline": INJECTED}
    (folder / "spec.json").write_text(json.dumps(spec))
    out = results(folder)
    assert f"backends against {INJECTED} (paired t-test)" in out
    assert "over repetitions matched by number" in out
    rows = [line for line in out.splitlines() if line.startswith("│ workload")]
    assert len(rows) == 4 and all("│ local " in r and r.rstrip("│ ").endswith("3") for r in rows)


def test_a_failed_cell_is_listed_with_its_reason(tmp_path):
    folder = working_copy("backends", tmp_path)
    db = sqlite3.connect(folder / "index.sqlite")
    db.execute("UPDATE cells SET status = 'failed', reason = ? WHERE cell_index = 2",
               ("database container c1 (redis) exited with code 137 during the run phase",))  # fmt: skip
    db.execute(
        "DELETE FROM phases WHERE cell_key = (SELECT cell_key FROM cells WHERE cell_index = 2)"
    )
    db.commit()
    db.close()
    out = results(folder)
    assert "failed (see below)" in out
    assert "failed: cell 2 (" in out and "exited with code 137 during the run phase" in out
    assert "7 of 8 cells done, 0 skipped, 1 failed" in out
