"""`contio run` from another directory with relative paths: the results folder (default
`results`) and a `--resume` folder are made absolute once, at the command line, so nothing
after it (Docker mounts, the engine's arguments, the index) sees a relative path."""

from __future__ import annotations

import re
from pathlib import Path

from contio_command import contio_in

SPEC = """\
name: rel
factors:
  target: [null]
  workload: [workloadc]
  threads: [1, 2]
stop: {rule: fixed-ops, operations: 200, repetitions: 1}
properties: {recordcount: 50}
"""


def results_line(stdout: str) -> Path:
    match = re.search(r"^results: (.+)$", stdout, re.MULTILINE)
    assert match, stdout
    return Path(match[1].strip())


def test_the_default_results_dir_is_made_absolute(tmp_path, engine):
    (tmp_path / "spec.yaml").write_text(SPEC)
    done = contio_in(tmp_path, "run", "spec.yaml")
    assert done.returncode == 0, done.stderr
    folder = results_line(done.stdout)
    assert folder.is_absolute(), folder
    assert folder.parent == tmp_path / "results"
    assert (folder / "index.sqlite").is_file()


def test_a_relative_resume_folder_is_made_absolute(tmp_path, engine):
    (tmp_path / "spec.yaml").write_text(SPEC)
    first = contio_in(tmp_path, "run", "spec.yaml", "--results-dir", "out")
    assert first.returncode == 0, first.stderr
    folder = results_line(first.stdout)
    assert folder.is_absolute() and folder.parent == tmp_path / "out"

    relative = folder.relative_to(tmp_path)
    again = contio_in(tmp_path, "run", "spec.yaml", "--resume", str(relative))
    assert again.returncode == 0, again.stderr
    assert results_line(again.stdout) == folder
