"""What every stage of one run shares once its results are open: the engine, the results
folder and its index, the live display and the session number. One object handed down
instead of the same five arguments to every call."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from contio.results.folder import ResultsFolder
from contio.results.index import ResultsIndex
from contio.run.progress import RunProgress


@dataclass(frozen=True)
class RunSession:
    """One session of a run (a resume is a new session of the same folder)."""

    engine: Path
    folder: ResultsFolder
    index: ResultsIndex
    progress: RunProgress
    number: int
    """The index's session number: every phase row carries it."""
