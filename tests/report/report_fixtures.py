"""The recorded results folders of `tests/data/report/` as working copies.

The folders are stored as text: the index as its SQL dump (`index.sql`). A copy in a
temporary directory gets its `index.sqlite` back, so tests never write into the repo.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "report"


def results_folder(name: str, into: Path) -> Path:
    """A working copy of the recorded folder `name` under `into`, with its SQLite index."""
    folder = into / name
    shutil.copytree(DATA / name, folder)
    db = sqlite3.connect(folder / "index.sqlite")
    db.executescript((folder / "index.sql").read_text(encoding="utf-8"))
    db.close()
    return folder
