"""The results folder of an experiment (its rows are `contio.results.phase_record`).

One folder per experiment: `<root>/<name>-<UTC time>[-n]/`.

    spec.yaml           the spec as the user wrote it (`--resume` runs it again)
    spec.json           the validated spec (profile merged, workload files resolved)
    host.json           the machine and software that ran it
    backends.json       what each backend level was (device, file system, layout)
    index.sqlite        cells and their state, every phase (`contio.results.index`)
    raw/cell<NNN>/s<session>-rep<r>/load-c<k>.json, run-c<k>.json
                        the engine's result documents per container; `.txt` its
                        YCSB-format stdout, `.stderr` its status lines and messages
    repetitions.csv     one row per phase × repetition × container, appended as each ends
    summary.csv         one row per cell: mean, standard deviation, 95% CI, latency
                        (derived from the index; rewritten when a resumed run ends)

Raw files and rows are created exclusively (mode `x`, unique index rows), so no result
is ever replaced; a crash or an interrupt leaves every completed row on disk.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from contio.errors import ResultsFolderError
from contio.output_files import output_problem, replace_text, write_output
from contio.results.index import ResultsIndex
from contio.results.phase_record import PhaseRecord

REPETITIONS_CSV = "repetitions.csv"
SUMMARY_CSV = "summary.csv"
BACKENDS_JSON = "backends.json"
RAW_DIR = "raw"
"""The engine's documents and each repetition's other raw files (`ResultsFolder.phase_dir`)."""
SERVERS_JSON = "servers.json"
"""In a repetition's `phase_dir` when its load started database servers: what ran."""
EVENTS_JSON = "events.json"
"""In a repetition's `phase_dir` when the spec has fault events: what happened when."""
MIDDLEWARE_SAMPLES_JSONL = "run-middleware.jsonl"
"""In a repetition's `phase_dir` when its cell's tenants ran under the I/O middleware:
every node report of the run phase (per tenant: share in force, measured bytes/s)."""
MIDDLEWARE_MOVES_JSON = "run-middleware-moves.json"
"""Beside it: the moments the run phase's shares moved."""


@dataclass(frozen=True)
class PhaseFiles:
    """Where one phase's engine output goes."""

    json: Path
    stdout: Path
    stderr: Path


def _timestamp(now: datetime) -> str:
    return now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


class ResultsFolder:
    """The folder of one experiment's results."""

    def __init__(self, path: Path, created_root: Path | None = None):
        self.path = path
        self.created_root = created_root
        """The topmost folder `create` made above `path` (None: the root was there)."""

    @classmethod
    def create(cls, root: Path, name: str, now: datetime | None = None) -> ResultsFolder:
        """Make a new folder `<root>/<name>-<UTC time>`, adding `-2`, `-3`… if it exists."""
        stem = f"{name}-{_timestamp(now or datetime.now(timezone.utc))}"
        missing = [p for p in (root, *root.parents) if not p.exists()]
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ResultsFolderError(f"cannot create results root {root}: {exc}") from exc
        for n in range(1, 10_000):
            path = root / (stem if n == 1 else f"{stem}-{n}")
            try:
                path.mkdir()  # atomic: fails if another run took the name
            except FileExistsError:
                continue
            except OSError as exc:
                raise ResultsFolderError(f"cannot create results folder {path}: {exc}") from exc
            return cls(path, missing[-1] if missing else None)
        raise ResultsFolderError(f"no free results folder name for {stem} in {root}")

    def remove_unused(self) -> None:
        """Remove this folder, made by `create` for a run that recorded nothing, and the
        folders `create` made above it when they hold nothing else."""
        shutil.rmtree(self.path, ignore_errors=True)
        if self.created_root is None:
            return
        for place in self.path.parents:
            try:
                place.rmdir()  # only when empty
            except OSError:
                return
            if place == self.created_root:
                return

    def write_text(self, relative: str, text: str) -> Path:
        """Create a new file in the folder; refuses to replace an existing one."""
        path = self.path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="utf-8") as out:
                out.write(text)
        except FileExistsError:
            raise ResultsFolderError(f"{path} exists; results are never overwritten") from None
        return path

    def write_json(self, relative: str, data: Any) -> Path:
        """Create a new JSON file in the folder."""
        return self.write_text(relative, json.dumps(data, indent=2, default=str) + "\n")

    def phase_dir(self, cell: str, session: int, repetition: int) -> Path:
        """The directory of one repetition's raw files in one session (not created):
        `raw/<cell>/s<session>-rep<r>`, the only place that layout is spelled out.

        The session (one per `contio run` or `--resume` on the folder) keeps a repetition
        redone after an interrupt from touching the interrupted one's files.
        """
        return self.path / RAW_DIR / cell / f"s{session}-rep{repetition}"

    def phase_files(
        self, cell: str, session: int, repetition: int, phase: str, container: int
    ) -> PhaseFiles:
        """Paths for one container's phase output (in `phase_dir`); the directory is
        created, the files are not."""
        directory = self.phase_dir(cell, session, repetition)
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / f"{phase}-c{container}"
        files = PhaseFiles(
            stem.with_suffix(".json"), stem.with_suffix(".txt"), stem.with_suffix(".stderr")
        )
        taken = [p for p in (files.json, files.stdout, files.stderr) if p.exists()]
        if taken:
            raise ResultsFolderError(f"{taken[0]} exists; results are never overwritten")
        return files

    def relative(self, path: Path) -> str:
        """`path` relative to the folder, as stored in the CSV files."""
        return str(path.relative_to(self.path))

    def append_record(self, record: PhaseRecord) -> None:
        """Add one row to repetitions.csv and flush it to disk."""
        _append_rows(self.path / REPETITIONS_CSV, [dataclasses.asdict(record)])

    def sync_repetitions(self, phases: list[dict[str, Any]]) -> str | None:
        """Make repetitions.csv hold the index's phase rows (`phases`, in order) before a
        resumed run appends to it; None when it already does, else what was repaired.

        The file is a copy of the index, appended as each phase ends; a crash or a full
        disk can leave it cut short, mid-row, and the next row appended would be glued
        onto the partial one. The index commits every row whole, so the file is
        rewritten from it.
        """
        path = self.path / REPETITIONS_CSV
        found = _readable_rows(path)
        fields = [f.name for f in dataclasses.fields(PhaseRecord)]
        if found is not None and _same_phases(found, phases, fields):
            return None
        rows = [{name: row.get(name) for name in fields} for row in phases]
        if rows:
            write_output(path, lambda partial: _append_rows(partial, rows))
        else:
            path.unlink(missing_ok=True)
        have = "unreadable" if found is None else f"{len(found)} readable rows"
        return (
            f"{path} did not match {len(phases)} phases in the index ({have}); "
            "rewritten from the index"
        )

    def replace_derived(self, relative: str, rows: list[dict[str, Any]]) -> Path:
        """Write a file derived from the index (summary.csv) atomically, replacing it.

        Only derived files are replaced: they are recomputed from the raw results.
        """
        path = self.path / relative
        if rows:
            write_output(path, lambda partial: _append_rows(partial, rows))
        return path

    def replace_derived_json(self, relative: str, data: Any) -> Path:
        """Write a JSON file derived from the index (backends.json) atomically, replacing it."""
        return replace_text(self.path / relative, json.dumps(data, indent=2, default=str) + "\n")

    def write_rows(self, relative: str, rows: list[dict[str, Any]]) -> Path:
        """Create a new CSV file from rows of equal keys."""
        path = self.path / relative
        if path.exists():
            raise ResultsFolderError(f"{path} exists; results are never overwritten")
        _append_rows(path, rows)
        return path


def _append_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    problem = output_problem(path)
    if problem is not None:  # appending to a FIFO would block, to a device write it
        raise ResultsFolderError(f"cannot write {path}: {problem}")
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)
        out.flush()
        os.fsync(out.fileno())


def _readable_rows(path: Path) -> list[dict[str, Any]] | None:
    """The rows of a CSV file ([] when it does not exist), None when it cannot be read or
    ends mid-row."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError):
        return None
    if text and not text.endswith("\n"):
        return None  # cut short in the middle of a row
    try:
        return list(csv.DictReader(text.splitlines()))
    except csv.Error:
        return None


# What tells the phase rows apart: a file with these in the index's order holds its rows.
_IDENTITY = ("cell_key", "session", "phase", "repetition", "container", "status", "raw_json")


def _same_phases(
    found: list[dict[str, Any]], phases: list[dict[str, Any]], fields: list[str]
) -> bool:
    if len(found) != len(phases):
        return False
    if found and list(found[0]) != fields:
        return False  # another header (an older contio): rewrite with today's columns
    return all(
        all(str(row[k]) == str(phase[k]) for k in _IDENTITY)
        for row, phase in zip(found, phases, strict=True)
    )


def read_records(folder: Path) -> list[PhaseRecord]:
    """The phase records of a results folder, in the order they finished."""
    path = folder / REPETITIONS_CSV
    if not path.exists():
        return []
    types = {f.name: str(f.type) for f in dataclasses.fields(PhaseRecord)}
    converters: dict[str, Callable[[str], Any]] = {
        "int": int,
        "float": float,
        "str": str,
        "float | None": lambda v: float(v) if v != "" else None,
    }
    with path.open(newline="", encoding="utf-8") as src:
        return [
            PhaseRecord(**{k: converters[types[k]](v) for k, v in row.items()})
            for row in csv.DictReader(src)
        ]


def load(folder: Path | str) -> Any:
    """The run phases of a results folder as a pandas DataFrame.

    One row per cell × repetition × container: the cell's factor levels as columns
    (`backend`, `target`, `workload` or `mix`, `threads`, `containers`, …), then the
    phase's measurements (`steady_ops_per_sec`, `throughput_ops_per_sec`, latency, …).
    """
    import pandas as pd  # imported here: only analysis needs it

    index = ResultsIndex.open(Path(folder))
    try:
        levels = {c["cell_key"]: c["levels"] for c in index.cells()}
        rows = [{**levels[r["cell_key"]], **r} for r in index.phases("run")]
    finally:
        index.close()
    return pd.DataFrame(rows)
