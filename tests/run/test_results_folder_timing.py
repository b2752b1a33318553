"""A refused run leaves no results folder (issue 29, point B): every check runs before the
folder is made, and a refusal that only provisioning can find (the backend's directory
removed since the spec was read) removes the folder it made, nothing measured in it,
and the results root it made for it."""

from __future__ import annotations

import pytest

from contio.errors import UsageError
from contio.experiment.load import parse_spec_text
from contio.run.runner import Runner

SPEC = """
name: gone
backend: {type: path, path: DATA}
factors: {workload: [workloadc]}
properties: {recordcount: 10, operationcount: 10}
stop: {repetitions: 1}
"""


def test_a_refusal_at_provisioning_removes_the_folder_it_made(tmp_path, engine):
    data = tmp_path / "data"
    data.mkdir()
    text = SPEC.replace("DATA", str(data))
    spec = parse_spec_text(text, "gone.yaml", tmp_path)
    data.rmdir()  # the user's folder goes before the run provisions it
    root = tmp_path / "results" / "nested"
    runner = Runner(spec, text, root)
    with pytest.raises(UsageError, match="is not an existing directory"):
        runner.run()
    assert runner.folder is None
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # neither results/ nor nested/


def test_a_results_root_that_was_there_is_kept(tmp_path, engine):
    data = tmp_path / "data"
    data.mkdir()
    text = SPEC.replace("DATA", str(data))
    spec = parse_spec_text(text, "gone.yaml", tmp_path)
    data.rmdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "earlier.txt").write_text("a user's file\n")
    with pytest.raises(UsageError):
        Runner(spec, text, tmp_path / "results").run()
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["earlier.txt"]
