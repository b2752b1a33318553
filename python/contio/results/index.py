"""The SQLite index of a results folder (`index.sqlite`): cells, their state, every phase.

The index is what `--resume` reads to go on from the first unfinished cell, what
`contio results` summarizes and what `contio.results.load` turns into a DataFrame.
Each write is its own committed transaction, so an interrupt keeps every row written
before it. Run rows that completed (`status = 'ok'`) are unique per cell, repetition
and container: a completed repetition can never be written twice.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from contio.errors import DamagedResultsError, ResultsFolderError
from contio.results.repetitions import complete as counted_repetitions
from contio.samplers.phase import COLUMNS as METRIC_COLUMNS
from contio.sqlite_schema import add_missing_columns
from contio.sqlite_transaction import immediate_transaction

INDEX_FILE = "index.sqlite"
REQUIRED_TABLES = ("meta", "cells", "phases")
"""Tables every index has had (`backends` and later columns are added when missing)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    cell_key TEXT PRIMARY KEY,
    cell_index INTEGER NOT NULL,
    label TEXT NOT NULL,
    levels TEXT NOT NULL,
    members INTEGER NOT NULL,  -- engines per repetition (containers × mix members)
    status TEXT NOT NULL DEFAULT 'pending',  -- pending|running|done|skipped|failed|interrupted
    reason TEXT,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS phases (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    cell_key TEXT NOT NULL REFERENCES cells(cell_key),
    cell_index INTEGER NOT NULL,
    phase TEXT NOT NULL,
    repetition INTEGER NOT NULL,
    container INTEGER NOT NULL,
    target TEXT NOT NULL,
    workload TEXT NOT NULL,
    threads INTEGER NOT NULL,
    status TEXT NOT NULL,
    operations INTEGER NOT NULL,
    failed_operations INTEGER NOT NULL,
    runtime_ms REAL NOT NULL,
    throughput_ops_per_sec REAL NOT NULL,
    steady_ops_per_sec REAL NOT NULL,
    warmup_excluded_s REAL NOT NULL,
    p95_latency_us REAL,  -- NULL: no operation completed (a starved group)
    p99_latency_us REAL,
    latency_source TEXT NOT NULL,
    started_at TEXT NOT NULL,
    raw_json TEXT NOT NULL,
    reads_per_sec REAL,        -- file workloads only (NULL for YCSB phases)
    writes_per_sec REAL,
    iops REAL,
    read_mib_per_sec REAL,
    written_mib_per_sec REAL,
    io_control TEXT NOT NULL DEFAULT '',  -- JSON of the block I/O controls applied
    -- means of the phase's per-second samples (contio.samplers.phase)
    cpu_percent REAL,
    disk_percent REAL,
    disk_read_bytes_per_sec REAL,
    disk_write_bytes_per_sec REAL,
    net_rx_bytes_per_sec REAL,
    net_tx_bytes_per_sec REAL,
    client_cpu_percent REAL,
    client_memory_bytes REAL,
    client_read_bytes_per_sec REAL,
    client_write_bytes_per_sec REAL,
    server_cpu_percent REAL,
    server_memory_bytes REAL,
    server_read_bytes_per_sec REAL,
    server_write_bytes_per_sec REAL,
    client_memory_limit_bytes REAL,
    client_major_faults_per_sec REAL,
    server_memory_limit_bytes REAL,
    server_major_faults_per_sec REAL,
    disk_device TEXT NOT NULL DEFAULT '',
    tpmc REAL,                 -- tpcc run phases only: New-Orders per minute (tpmC)
    disk_read_ops_per_sec REAL,
    disk_write_ops_per_sec REAL,
    disk_merged_percent REAL,
    disk_queue_depth REAL,
    data_bytes REAL            -- the container's data on its backend when the phase ended
);
CREATE UNIQUE INDEX IF NOT EXISTS completed_runs
    ON phases(cell_key, repetition, container) WHERE phase = 'run' AND status = 'ok';
CREATE TABLE IF NOT EXISTS backends (
    name TEXT PRIMARY KEY, description TEXT, unavailable TEXT
);
"""


_LATER_COLUMNS = {
    "reads_per_sec": "REAL",
    "writes_per_sec": "REAL",
    "iops": "REAL",
    "read_mib_per_sec": "REAL",
    "written_mib_per_sec": "REAL",
    "io_control": "TEXT NOT NULL DEFAULT ''",
    **{column: "REAL" for column in METRIC_COLUMNS},
    "disk_device": "TEXT NOT NULL DEFAULT ''",
    "tpmc": "REAL",
    "data_bytes": "REAL",
}


class ResultsIndex:
    """One experiment's index; open with `create` (new folder) or `open` (resume, read)."""

    def __init__(self, path: Path):
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None)  # autocommit; see _tx
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA foreign_keys = ON")

    @classmethod
    def create(cls, folder: Path) -> ResultsIndex:
        index = cls(folder / INDEX_FILE)
        index._db.executescript(_SCHEMA)
        return index

    @classmethod
    def open(cls, folder: Path) -> ResultsIndex:
        """An existing folder's index, checked whole first: `DamagedResultsError` naming
        the file when SQLite cannot read it, its integrity check fails or its tables
        are missing (a file cut to nothing is an empty database to SQLite)."""
        path = folder / INDEX_FILE
        if not path.is_file():
            raise ResultsFolderError(f"{folder} has no {INDEX_FILE}: not a contio results folder")
        index = cls(path)
        try:
            index._check_intact()
            # Indexes made before the file I/O and metrics columns existed get them.
            add_missing_columns(index._db, "phases", _LATER_COLUMNS)
        except sqlite3.OperationalError as exc:
            # Busy (a run holding a write longer than the timeout), no permission: the
            # file may well be whole.
            index.close()
            raise ResultsFolderError(f"cannot read {path}: {exc}") from None
        except sqlite3.DatabaseError as exc:  # not a database, malformed
            index.close()
            raise DamagedResultsError(path, f"damaged ({exc})") from None
        except DamagedResultsError:
            index.close()
            raise
        return index

    def _check_intact(self) -> None:
        problems = [row[0] for row in self._db.execute("PRAGMA integrity_check(3)")]
        if problems != ["ok"]:
            raise DamagedResultsError(
                self.path, "fails SQLite's integrity check: " + "; ".join(problems)
            )
        tables = {
            row[0]
            for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        missing = [t for t in REQUIRED_TABLES if t not in tables]
        if missing:
            raise DamagedResultsError(
                self.path,
                f"has no {', '.join(missing)} table{'s' if len(missing) > 1 else ''} "
                "(cut short, or not a contio index)",
            )

    def _json(self, text: str, what: str) -> Any:
        """A JSON value stored in the index; a damaged one names the file and the row."""
        try:
            return json.loads(text)
        except ValueError:
            raise DamagedResultsError(self.path, f"{what} is not valid JSON") from None

    def close(self) -> None:
        self._db.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return immediate_transaction(self._db)

    # -- meta ---------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def meta(self, key: str, default: Any = None) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return self._json(row["value"], f"meta {key!r}") if row else default

    def new_session(self) -> int:
        """Count one more `contio run` on this folder; raw paths carry the number."""
        session = int(self.meta("sessions", 0)) + 1
        self.set_meta("sessions", session)
        return session

    # -- cells --------------------------------------------------------------------------
    def add_cells(self, cells: list[tuple[str, int, str, dict[str, Any], int]]) -> None:
        """Register (key, index, label, levels, members) once; existing cells keep their state."""
        with self._tx() as db:
            db.executemany(
                "INSERT OR IGNORE INTO cells (cell_key, cell_index, label, levels, members) "
                "VALUES (?, ?, ?, ?, ?)",
                [(k, i, label, json.dumps(levels), n) for k, i, label, levels, n in cells],
            )

    def cell_status(self, key: str) -> str:
        row = self._db.execute("SELECT status FROM cells WHERE cell_key = ?", (key,)).fetchone()
        return row["status"] if row else "pending"

    def set_cell_status(self, key: str, status: str, reason: str | None = None) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE cells SET status = ?, reason = ?, "
                "finished_at = CASE WHEN ? IN ('done', 'skipped', 'failed') "
                "THEN strftime('%Y-%m-%dT%H:%M:%SZ', 'now') END WHERE cell_key = ?",
                (status, reason, status, key),
            )

    def cells(self) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT * FROM cells ORDER BY cell_index").fetchall()
        return [
            {**dict(r), "levels": self._json(r["levels"], f"cell {r['cell_index']}'s levels")}
            for r in rows
        ]

    # -- phases -------------------------------------------------------------------------
    def add_phase(self, row: dict[str, Any]) -> None:
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        with self._tx() as db:
            db.execute(f"INSERT INTO phases ({columns}) VALUES ({marks})", tuple(row.values()))

    def completed_throughputs(self, key: str, containers: int) -> list[float]:
        """Per completed repetition of a cell (every container ok): ops/s summed over its
        containers, in repetition order."""
        rows = self._db.execute(
            "SELECT repetition, container, status, steady_ops_per_sec FROM phases "
            "WHERE cell_key = ? AND phase = 'run'",
            (key,),
        ).fetchall()
        counted = counted_repetitions([dict(r) for r in rows], containers)
        return [sum(r["steady_ops_per_sec"] for r in found) for found in counted.values()]

    def last_repetition(self, key: str) -> int:
        """The highest repetition number any phase of the cell has used."""
        row = self._db.execute(
            "SELECT MAX(repetition) AS r FROM phases WHERE cell_key = ? AND phase = 'run'", (key,)
        ).fetchone()
        return int(row["r"] or 0)

    def phases(self, phase: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT * FROM phases" + (" WHERE phase = ?" if phase else "") + " ORDER BY id"
        return [dict(r) for r in self._db.execute(query, (phase,) if phase else ())]

    # -- backends -----------------------------------------------------------------------
    def set_backend(self, name: str, description: Any, unavailable: str | None) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO backends VALUES (?, ?, ?)",
                (name, json.dumps(description, default=str), unavailable),
            )

    def backends(self) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT * FROM backends ORDER BY name").fetchall()
        return [
            {
                **dict(r),
                "description": self._json(r["description"] or "null", f"backend {r['name']!r}"),
            }
            for r in rows
        ]
