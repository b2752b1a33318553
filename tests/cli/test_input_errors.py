"""No traceback for any input (issue 12, point 9): each case exits 2 with one line naming
the file, through the real `contio` command line, on a real results folder."""

from __future__ import annotations

import csv
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

SPEC = """name: damaged
backend: {type: local-dir, path: DATA}
factors: {target: [null], workload: [workloada, workloadc]}
properties: {recordcount: 100, operationcount: 200}
stop: {rule: workload, repetitions: 2}
"""


def contio(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contio", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, no traceback: an error (one line, or a spec's list of problems) with every
    one of `words`."""
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("error: "), done.stderr
    assert all(w in done.stderr for w in words), done.stderr


@pytest.fixture(scope="module")
def finished(tmp_path_factory, engine) -> tuple[Path, Path]:
    """(spec, results folder) of a small finished experiment; tests work on copies."""
    root = tmp_path_factory.mktemp("finished")
    (root / "data").mkdir()
    spec = root / "spec.yaml"
    spec.write_text(SPEC.replace("DATA", str(root / "data")))
    done = contio("run", spec, "--results-dir", root / "results")
    assert done.returncode == 0, done.stderr
    [folder] = (root / "results").iterdir()
    return spec, folder


@pytest.fixture
def folder(finished, tmp_path) -> Path:
    copy = tmp_path / "results" / finished[1].name
    shutil.copytree(finished[1], copy)
    return copy


def test_a_binary_spec_file(tmp_path):
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(bytes(range(200, 256)) * 4)
    refused(contio("plan", spec), "cannot read spec", "spec.yaml", "not UTF-8 text")


def test_a_fio_job_file_without_a_section(tmp_path):
    (tmp_path / "job.fio").write_text("rw=read\nsize=1m\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: f\nfactors: {workload: [{kind: fio, file: job.fio}]}\n"
        "stop: {rule: fixed-time, seconds: 1}\n"
    )
    refused(contio("plan", spec), "job.fio", "line 1: option 'rw=read' outside any section")


@pytest.mark.parametrize(
    ("args", "path"),
    [
        (["compare", "{A}", "{A}", "--html", "/nonexistent/dir/x.html"], "/nonexistent/dir/x.html"),
        (["report", "{A}", "-o", "/nonexistent/r.html"], "/nonexistent/r.html"),
        (["export", "{A}", "-o", "/nonexistent/x.json"], "/nonexistent/x.json"),
        (["export", "{A}", "--format", "parquet", "-o", "/proc/x.parquet"], "/proc/x.parquet"),
        (["export", "{A}", "--format", "json", "-o", "/proc/x.json"], "/proc/x.json"),
    ],
    ids=[
        "compare-html",
        "report-output",
        "export-output",
        "export-parquet-proc",
        "export-json-proc",
    ],
)
def test_an_output_file_that_cannot_be_written(folder, args, path):
    done = contio(*(str(folder) if a == "{A}" else a for a in args))
    refused(done, f"cannot write {path}")
    assert not any(Path("/proc").glob("x.*"))


def _zero(path: Path) -> None:
    path.write_bytes(b"")


def _half(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _random(path: Path) -> None:
    data = bytearray(path.read_bytes())
    third = len(data) // 3
    data[third : third + 4000] = bytes((i * 97 + 13) % 256 for i in range(4000))
    path.write_bytes(bytes(data[: len(data)]))


def _header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[:100] = bytes(range(100))
    path.write_bytes(bytes(data))


def _index_out_of_step(path: Path) -> None:
    """One letter of a cell's key changed in the table only: every query still reads,
    but the table and its primary-key index disagree (SQLite's integrity check fails)."""
    with sqlite3.connect(path) as db:
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'cells'").fetchone()[0]
        key = db.execute("SELECT cell_key FROM cells").fetchone()[0].encode()
    db.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    at = data.index(key, start, start + page_size)
    data[at + 2] ^= 0x01  # same length: the row stays well formed
    path.write_bytes(bytes(data))


DAMAGES = {
    "cut-to-nothing": (_zero, "has no meta, cells, phases tables"),
    "cut-in-half": (_half, "damaged (database disk image is malformed)"),
    "random-bytes": (_random, "damaged (database disk image is malformed)"),
    "header": (_header, "damaged (file is not a database)"),
    "out-of-step": (_index_out_of_step, "fails SQLite's integrity check: row "),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
@pytest.mark.parametrize("command", ["results", "report", "export", "compare", "resume"])
def test_a_damaged_index_is_refused_naming_the_file(finished, folder, damage, command):
    spoil, problem = DAMAGES[damage]
    index = folder / "index.sqlite"
    spoil(index)
    args = {
        "results": ["results", folder],
        "report": ["report", folder],
        "export": ["export", folder],
        "compare": ["compare", finished[1], folder],
        "resume": ["run", finished[0], "--resume", folder],
    }[command]
    refused(contio(*args), f"{index}: {problem}", "contio cannot read this results folder")


def test_a_deleted_raw_folder_is_a_warning_in_the_report(folder):
    shutil.rmtree(folder / "raw")
    done = contio("report", folder)
    assert done.returncode == 0, done.stderr
    html = (folder / "report.html").read_text()
    assert f"raw/ is missing from {folder}: the per-second time series" in html


def test_resume_repairs_a_repetitions_csv_cut_short_from_the_index(finished, folder):
    # As an interrupt leaves it: cell 2 unfinished (its second repetition never ran),
    # and the file cut in the middle of a row (a crash, a full disk).
    with sqlite3.connect(folder / "index.sqlite") as db:
        db.execute("UPDATE cells SET status = 'interrupted' WHERE cell_index = 2")
        db.execute("DELETE FROM phases WHERE cell_index = 2 AND repetition = 2")
    db.close()
    table = folder / "repetitions.csv"
    table.write_bytes(table.read_bytes()[: len(table.read_bytes()) * 2 // 3])

    done = contio("run", finished[0], "--resume", folder)
    assert done.returncode == 0, done.stderr
    assert f"warning: {table} did not match" in done.stderr
    assert "rewritten from the index" in done.stderr
    with table.open(newline="") as src:
        rows = list(csv.DictReader(src))
    with sqlite3.connect(folder / "index.sqlite") as db:
        phases = db.execute("SELECT cell_index, phase, repetition FROM phases ORDER BY id")
        expected = [tuple(map(str, p)) for p in phases]
    db.close()
    assert [(r["cell_index"], r["phase"], r["repetition"]) for r in rows] == expected
    assert all(None not in r and None not in r.values() for r in rows)  # every row whole
    assert ("2", "run", "2") in expected


def test_resume_leaves_a_whole_repetitions_csv_alone(finished, folder):
    before = (folder / "repetitions.csv").read_bytes()
    done = contio("run", finished[0], "--resume", folder)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    assert (folder / "repetitions.csv").read_bytes() == before
