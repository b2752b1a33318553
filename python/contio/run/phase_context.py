"""Which phase is running: the spec, the results folder, the session, the cell, the
repetition and the phase (`load` or `run`) that name its files and its results rows.

The runner makes one per repetition and hands it, as one object, to whatever builds
the phase's engine calls and records (`contio.run.phase_calls`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from contio.experiment.matrix import Cell
from contio.experiment.spec import ExperimentSpec
from contio.results.folder import PhaseFiles, ResultsFolder


@dataclass(frozen=True)
class PhaseContext:
    """One phase of one repetition of one cell, in one session of a results folder."""

    spec: ExperimentSpec
    folder: ResultsFolder
    session: int
    """The folder's session of this `contio run` (or `--resume`)."""
    cell: Cell
    repetition: int
    phase: str
    """`load` or `run` (the runner's names, whatever the kind calls them)."""

    def at(self, phase: str) -> PhaseContext:
        """The same repetition's `phase`."""
        return dataclasses.replace(self, phase=phase)

    @property
    def directory(self) -> Path:
        """The repetition's raw directory (`ResultsFolder.phase_dir`), not created."""
        return self.folder.phase_dir(self.cell.slug, self.session, self.repetition)

    def files(self, container: int) -> PhaseFiles:
        """Where container `container` (1-based) of this phase writes its engine output."""
        return self.folder.phase_files(
            self.cell.slug, self.session, self.repetition, self.phase, container
        )

    def write_json(self, name: str, data: object) -> Path:
        """Create `name` in the repetition's raw directory (`servers.json`, `events.json`)."""
        return self.folder.write_json(self.folder.relative(self.directory / name), data)
