"""Result records and the results folder of an experiment.

One folder per experiment, never overwritten: `<root>/<name>-<UTC time>[-n]/`.

    spec.yaml           the spec as the user wrote it
    spec.json           the validated spec (workload files resolved)
    host.json           the machine and software that ran it
    backend.json        what the storage was (path, file system, device)
    raw/<target>-<workload>/rep<r>/load.json, run-t<threads>.json
                        the engine's result documents; `.txt` its YCSB-format
                        stdout, `.stderr` its status lines and messages
    repetitions.csv     one row per phase × repetition, appended as each finishes
    summary.csv         one row per cell: mean, standard deviation, 95% CI, latency

Every file is created exclusively (mode `x`), so nothing in a folder is ever
replaced; a crash or an interrupt leaves every completed row on disk.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from contio.engine_result import EngineResult
from contio.errors import ResultsFolderError
from contio.latency import phase_latency

REPETITIONS_CSV = "repetitions.csv"
SUMMARY_CSV = "summary.csv"


@dataclass(frozen=True)
class PhaseRecord:
    """One phase (load or run) of one repetition of one cell. Units are in the names."""

    target: str
    workload: str
    phase: str
    threads: int
    repetition: int
    status: str
    operations: int
    failed_operations: int
    runtime_ms: float
    throughput_ops_per_sec: float
    p95_latency_us: float
    p99_latency_us: float
    latency_source: str
    """How p95/p99 span operation types (see `contio.latency`)."""
    started_at: str
    raw_json: str
    """Path of the engine's document, relative to the results folder."""

    @classmethod
    def from_result(
        cls, result: EngineResult, *, workload: str, repetition: int, raw_json: str
    ) -> PhaseRecord:
        latency = phase_latency(result, (95, 99))
        return cls(
            target=result.target,
            workload=workload,
            phase=result.phase,
            threads=result.threads,
            repetition=repetition,
            status=result.status,
            operations=result.operations,
            failed_operations=result.failed_operations,
            runtime_ms=result.runtime_ms,
            throughput_ops_per_sec=result.throughput_ops_per_sec,
            p95_latency_us=latency.percentiles["p95"],
            p99_latency_us=latency.percentiles["p99"],
            latency_source=latency.source,
            started_at=result.started_at,
            raw_json=raw_json,
        )


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

    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def create(cls, root: Path, name: str, now: datetime | None = None) -> ResultsFolder:
        """Make a new folder `<root>/<name>-<UTC time>`, adding `-2`, `-3`… if it exists."""
        stem = f"{name}-{_timestamp(now or datetime.now(timezone.utc))}"
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
            return cls(path)
        raise ResultsFolderError(f"no free results folder name for {stem} in {root}")

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

    def phase_files(self, group: str, repetition: int, phase: str) -> PhaseFiles:
        """Paths for one phase's output; the directory is created, the files are not."""
        directory = self.path / "raw" / group / f"rep{repetition}"
        directory.mkdir(parents=True, exist_ok=True)
        files = PhaseFiles(
            directory / f"{phase}.json", directory / f"{phase}.txt", directory / f"{phase}.stderr"
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
    new = not path.exists()
    with path.open("a", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)
        out.flush()
        os.fsync(out.fileno())


def read_records(folder: Path) -> list[PhaseRecord]:
    """The phase records of a results folder, in the order they finished."""
    path = folder / REPETITIONS_CSV
    if not path.exists():
        return []
    types = {f.name: f.type for f in dataclasses.fields(PhaseRecord)}
    converters = {"int": int, "float": float, "str": str}
    with path.open(newline="", encoding="utf-8") as src:
        return [
            PhaseRecord(**{k: converters[types[k]](v) for k, v in row.items()})
            for row in csv.DictReader(src)
        ]
