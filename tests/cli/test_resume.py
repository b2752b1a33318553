"""`contio run --resume DIR` and `contio results DIR`: an interrupted experiment goes on from
its first unfinished cell; completed cells are never rerun or overwritten."""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contio.results.folder import load


def contio(*args: str | Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "contio", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


SPEC = """
name: resumable
backend: {{type: local-dir, path: {data}}}
factors:
  target: [null]
  workload: [workloadc]
  threads: [1, 2, 3]
stop: {{rule: fixed-time, seconds: 1, repetitions: 3}}
properties: {{recordcount: 100}}
order: {{mode: fixed}}  # the test interrupts after cell 1 (tests/run/test_cell_order.py: random)
"""


def csv_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(newline="") as src:
        return list(csv.DictReader(src))


def test_resume_goes_on_from_the_first_unfinished_cell(tmp_path, engine):
    data = tmp_path / "data"
    data.mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(data=data))
    results = tmp_path / "results"
    proc = contio("run", spec, "--results-dir", results)
    deadline = time.monotonic() + 120
    rows: list[dict[str, str]] = []
    # Interrupt once cell 1 is complete and cell 2 has a repetition: mid-experiment.
    while proc.poll() is None and time.monotonic() < deadline:
        found = list(results.glob("*/repetitions.csv"))
        rows = csv_rows(found[0]) if found else []
        # The run appends to the file as we read it: a row (or the header) may be cut.
        if any(r.get("cell_index") == "2" and r.get("phase") == "run" for r in rows):
            break
        time.sleep(0.05)  # polling for the file, not guessing a duration
    proc.send_signal(signal.SIGINT)
    code, _, err = finish(proc)
    assert code == 128 + signal.SIGINT, err
    [folder] = list(results.iterdir())
    assert f"--resume {folder}" in err
    before = {p: p.read_bytes() for p in (folder / "raw" / "cell001").rglob("*.*")}
    assert before

    code, _, err = finish(contio("run", spec, "--resume", folder))
    assert code == 0, err
    assert "cell 1/3 was done before" in err
    assert list(results.iterdir()) == [folder]  # no new folder
    # Cell 1 was not rerun: its files are as they were, and nothing was added to them.
    assert {p: p.read_bytes() for p in (folder / "raw" / "cell001").rglob("*.*")} == before
    frame = load(folder)
    done = frame[frame["status"] == "ok"]
    assert set(done[done["cell_index"] == 1]["session"]) == {1}
    assert done.groupby("cell_index").size().to_dict() == {1: 3, 2: 3, 3: 3}
    assert set(done["session"]) == {1, 2}
    assert list(data.iterdir()) == []

    summary = subprocess.run(
        [sys.executable, "-m", "contio", "results", folder],
        capture_output=True,
        text=True,
        check=False,
    )
    assert summary.returncode == 0, summary.stderr
    assert "3 of 3 cells done, 0 skipped" in summary.stdout
    assert "± 95%" in summary.stdout or "95% CI" in summary.stdout


def test_resume_refuses_another_spec(tmp_path, engine):
    data = tmp_path / "data"
    data.mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.format(data=data).replace("[1, 2, 3]", "[1]"))
    code, _, err = finish(contio("run", spec, "--results-dir", tmp_path / "results"))
    assert code == 0, err
    [folder] = list((tmp_path / "results").iterdir())
    spec.write_text(SPEC.format(data=data).replace("[1, 2, 3]", "[1, 2]"))
    code, _, err = finish(contio("run", spec, "--resume", folder))
    assert code == 2
    assert "the spec (or a workload file) differs" in err


@pytest.mark.parametrize("folder", ["missing-index"])
def test_results_of_a_folder_without_an_index_is_refused(tmp_path, folder):
    (tmp_path / folder).mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "contio", "results", tmp_path / folder],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "not a contio results folder" in done.stderr
