"""Phase durations that earlier runs of the same experiment measured, to price a plan.

`contio plan` prices operation-bound phases at assumed rates, which can be far off (a
FerretDB load on a replicated Gluster volume ran at a tenth of them; a 2 GB sysbench
prepare per container has no record count to price at all). When the results folder
holds runs of the same experiment — the same spec fingerprint (`contio.run.identity`),
so the same cells with the same data — their phases say how long each cell's load and
run took here: the median over repetitions of the slowest container's time. Cells and
phases that were never measured keep the assumed price.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from contio.errors import DamagedResultsError
from contio.results.index import INDEX_FILE, ResultsIndex


@dataclass(frozen=True)
class MeasuredPhases:
    """Median measured seconds per (cell key, phase), and the folders they came from."""

    seconds: dict[tuple[str, str], float] = field(default_factory=dict)
    folders: list[Path] = field(default_factory=list)

    def get(self, cell_key: str, phase: str) -> float | None:
        return self.seconds.get((cell_key, phase))


def measured_phases(results_dir: Path, fingerprint: str) -> MeasuredPhases:
    """What the results folders under `results_dir` made with `fingerprint` measured."""
    per_phase: dict[tuple[str, str], list[float]] = defaultdict(list)
    folders = []
    for folder in sorted(p for p in results_dir.glob("*/") if (p / INDEX_FILE).is_file()):
        try:
            index = ResultsIndex.open(folder)
        except DamagedResultsError:
            continue  # a folder another tool damaged: its times are not worth a refusal
        try:
            if index.meta("spec_fingerprint") != fingerprint:
                continue
            slowest = _slowest_container(index.phases())
        finally:
            index.close()
        if slowest:
            folders.append(folder)
        for key, seconds in slowest.items():
            per_phase[key[:2]].append(seconds)
    return MeasuredPhases(
        {key: statistics.median(values) for key, values in per_phase.items()}, folders
    )


def _slowest_container(rows: list[dict]) -> dict[tuple[str, str, int, int], float]:
    """Per (cell, phase, session, repetition): the slowest container's seconds."""
    slowest: dict[tuple[str, str, int, int], float] = {}
    for row in rows:
        if row.get("status") != "ok" or row.get("runtime_ms") is None:
            continue
        key = (row["cell_key"], row["phase"], int(row["session"]), int(row["repetition"]))
        slowest[key] = max(slowest.get(key, 0.0), float(row["runtime_ms"]) / 1000.0)
    return slowest
