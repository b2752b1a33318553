"""One rule for which repetitions count, and every consumer applies it: `contio results`
(summaries), the stopping rule (the index), the report, the findings and the export agree
on every cell of recorded runs, also after one container of one repetition failed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from contio.findings.cell_data import cell_data
from contio.report.experiment import Experiment
from contio.report.export import export_frame
from contio.results.folder import load
from contio.results.index import ResultsIndex
from contio.results.summary import summarize
from report.report_fixtures import results_folder

RECORDED = ["backends", "scaling", "isolation"]


def _fail_one_container(folder: Path) -> tuple[str, int]:
    """Marks the last container's run of repetition 1 failed, in the cell with the most
    containers (the others of that repetition stay ok); returns (cell key, repetition)."""
    db = sqlite3.connect(folder / "index.sqlite")
    key, members = db.execute(
        "SELECT cell_key, members FROM cells ORDER BY members DESC, cell_index LIMIT 1"
    ).fetchone()
    changed = db.execute(
        "UPDATE phases SET status = 'failed' WHERE cell_key = ? AND phase = 'run' "
        "AND repetition = 1 AND container = ?",
        (key, members),  # containers are numbered from 1
    ).rowcount
    assert changed == 1
    db.commit()
    db.close()
    return key, 1


def _every_view(folder: Path) -> dict[str, dict[str, list[int] | list[float]]]:
    """Per consumer, per cell key: the repetitions it counts (and their ops/s where it
    gives them)."""
    index = ResultsIndex.open(folder)
    try:
        cells = index.cells()
        summaries = summarize(index)
        stopping = {c["cell_key"]: index.completed_throughputs(c["cell_key"], int(c["members"]))
                    for c in cells}  # fmt: skip
    finally:
        index.close()
    report = Experiment.read(folder).cells
    frame = load(folder)
    findings = cell_data(frame, cells, {}, "ops_per_sec")
    export = export_frame(folder)
    keys = [c["cell_key"] for c in cells]
    return {
        "results": {k: [n for n, _ in s.samples] for k, s in zip(keys, summaries, strict=True)},
        "results ops/s": {
            k: [v for _, v in s.samples] for k, s in zip(keys, summaries, strict=True)
        },
        "stopping ops/s": stopping,
        "report": {
            row["cell_key"]: list(row["sample_repetitions"]) for _, row in report.iterrows()
        },
        "report ops/s": {row["cell_key"]: list(row["samples"]) for _, row in report.iterrows()},
        "findings": {c.key: list(c.repetitions) for c in findings},
        "export": {
            k: sorted({int(r) for r in rows[rows["counted"]]["repetition"]})
            for k, rows in export.groupby("cell_key")
        },
    }


def _agree(views: dict[str, dict]) -> None:
    for key, numbers in views["results"].items():
        for name in ("report", "findings", "export"):
            assert views[name].get(key, []) == numbers, (name, key)
        for name in ("stopping ops/s", "report ops/s"):
            assert views[name][key] == pytest.approx(views["results ops/s"][key]), (name, key)


@pytest.mark.parametrize("name", RECORDED)
def test_every_consumer_counts_the_same_repetitions(tmp_path: Path, name: str) -> None:
    folder = results_folder(name, tmp_path)
    views = _every_view(folder)
    assert any(views["results"].values()), "the recorded run has counted repetitions"
    _agree(views)
    key, repetition = _fail_one_container(folder)
    views = _every_view(folder)
    assert repetition not in views["results"][key]
    _agree(views)
