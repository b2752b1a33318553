"""Record the report tests' results folders by running the specs in `specs/` (null target).

    .venv/bin/python tests/data/report/record.py [FOLDER...]   # default: every folder

Each folder is kept as text: the SQLite index becomes `index.sql` (its SQL dump), which
`tests/report/report_fixtures.py` loads back into `index.sqlite` in a temporary copy.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = {  # fixture folder: (spec, profile)
    "backends": ("backends.yaml", None),
    "backends-throttled": ("backends.yaml", "throttled"),
    "scaling": ("scaling.yaml", None),
    "isolation": ("isolation.yaml", None),
    "events": ("events.yaml", None),  # root and glusterd: a real node stop
}


def record(name: str, spec: str, profile: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "contio", "run", str(HERE / "specs" / spec),
                "--results-dir", tmp]  # fmt: skip
        if profile:
            argv += ["--profile", profile]
        subprocess.run(argv, check=True)
        (made,) = Path(tmp).iterdir()
        db = sqlite3.connect(made / "index.sqlite")
        (made / "index.sql").write_text("\n".join(db.iterdump()) + "\n", encoding="utf-8")
        db.close()
        (made / "index.sqlite").unlink()
        (made / "report.html").unlink(missing_ok=True)  # the tests write it again
        # Kept small: the report reads run phases only; load phases' raw files and the
        # engines' status logs are left out.
        for path in {*made.rglob("load-c*"), *made.rglob("*.stderr")}:
            path.unlink()
        target = HERE / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(made, target)


if __name__ == "__main__":
    for folder in sys.argv[1:] or RUNS:
        record(folder, *RUNS[folder])
