"""The undo journal: persisted before use, undone newest first, failures kept for a retry."""

from __future__ import annotations

import json

import pytest

from contio.errors import BackendError
from contio.host.undo_journal import UndoJournal


def test_entries_survive_the_process_and_are_undone_newest_first(tmp_path):
    made = tmp_path / "made"
    journal = UndoJournal(tmp_path / "j" / "journal.json")
    journal.record("dir", path=str(made))
    made.mkdir()
    journal.record("file", path=str(made / "f"))
    (made / "f").write_text("x")
    # A later process (e.g. `contio cluster down` after a crash) reads the same file.
    reloaded = UndoJournal(tmp_path / "j" / "journal.json")
    assert [e["kind"] for e in reloaded.entries] == ["dir", "file"]
    reloaded.undo_all()
    assert not made.exists()
    assert not (tmp_path / "j" / "journal.json").exists()


def test_a_failed_undo_stays_in_the_journal(tmp_path):
    journal = UndoJournal(tmp_path / "journal.json")
    journal.record("file", path=str(tmp_path / "gone"))  # already absent: undo is a no-op
    not_a_dir = tmp_path / "plain-file"
    not_a_dir.write_text("rmtree refuses a file")
    journal.record("dir", path=str(not_a_dir))
    with pytest.raises(BackendError, match="teardown left 1 resource"):
        journal.undo_all()
    left = json.loads((tmp_path / "journal.json").read_text())
    assert left == [{"kind": "dir", "path": str(not_a_dir)}]


def test_unknown_kinds_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown resource kind"):
        UndoJournal(tmp_path / "journal.json").record("volcano", path="/")
