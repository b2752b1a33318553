"""The coordinator's state in one SQLite file: what a restart must not lose.

Configuration (tenants, policy) is what users set; nodes, measured rates and the shares
in force are what the agents reported and were told, kept so that `status` after a
restart shows the settings the agents still apply (they are fail-static). `share_moves`
records every change of a share by more than MOVE_FRACTION, for the report's timeline.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from contio.qos.policy import TenantShare
from contio.sqlite_schema import add_missing_columns
from contio.sqlite_transaction import immediate_transaction

MOVE_FRACTION = 0.05
"""A share that changes by more than this fraction is a move worth recording."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tenants (
    name TEXT PRIMARY KEY, priority INTEGER NOT NULL,
    reservation REAL NOT NULL DEFAULT 0, rate_limit REAL,
    reservation_iops REAL NOT NULL DEFAULT 0, limit_iops REAL);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
    name TEXT PRIMARY KEY, capacity REAL NOT NULL, last_report REAL NOT NULL);
CREATE TABLE IF NOT EXISTS rates (
    node TEXT NOT NULL, tenant TEXT NOT NULL, used REAL NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (node, tenant));
CREATE TABLE IF NOT EXISTS shares (
    node TEXT NOT NULL, tenant TEXT NOT NULL, bps REAL NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (node, tenant));
CREATE TABLE IF NOT EXISTS share_moves (
    at REAL NOT NULL, node TEXT NOT NULL, tenant TEXT NOT NULL,
    old_bps REAL, new_bps REAL NOT NULL);
"""


_LATER_TENANT_COLUMNS = {"reservation_iops": "REAL NOT NULL DEFAULT 0", "limit_iops": "REAL"}


@dataclass(frozen=True)
class NodeRecord:
    """A storage node as last reported: its capacity (bytes/s) and when it reported."""

    name: str
    capacity: float
    last_report: float


class Store:
    """The coordinator's SQLite file; safe to use from the API's request threads."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.executescript(_SCHEMA)
        # A coordinator's file from before IOPS bounds gets their columns (unset).
        add_missing_columns(self._db, "tenants", _LATER_TENANT_COLUMNS)

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One writer at a time, all or nothing."""
        with self._lock, immediate_transaction(self._db) as db:
            yield db

    def tenants(self) -> dict[str, TenantShare]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, priority, reservation, rate_limit, reservation_iops, limit_iops"
                " FROM tenants ORDER BY name"
            ).fetchall()
        return {row[0]: TenantShare(*row) for row in rows}

    def put_tenant(self, tenant: TenantShare) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO tenants (name, priority, reservation, rate_limit,"
                " reservation_iops, limit_iops) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    tenant.name,
                    tenant.priority,
                    tenant.reservation,
                    tenant.limit,
                    tenant.reservation_iops,
                    tenant.limit_iops,
                ),
            )

    def remove_tenant(self, name: str) -> bool:
        with self.transaction() as db:
            removed = db.execute("DELETE FROM tenants WHERE name = ?", (name,)).rowcount
            for table in ("rates", "shares"):
                db.execute(f"DELETE FROM {table} WHERE tenant = ?", (name,))
        return bool(removed)

    def setting(self, key: str, default: str) -> str:
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def put_setting(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (key, value))

    def nodes(self) -> dict[str, NodeRecord]:
        with self._lock:
            rows = self._db.execute("SELECT name, capacity, last_report FROM nodes").fetchall()
        return {name: NodeRecord(name, capacity, last) for name, capacity, last in rows}

    def rates(self) -> dict[str, dict[str, float]]:
        """Measured bytes/s per node and tenant, from each node's last report."""
        return self._per_node("SELECT node, tenant, used FROM rates")

    def shares(self) -> dict[str, dict[str, float]]:
        """The shares in force (what each node's agent was last told), per node and tenant."""
        return self._per_node("SELECT node, tenant, bps FROM shares")

    def _per_node(self, query: str) -> dict[str, dict[str, float]]:
        with self._lock:
            rows = self._db.execute(query).fetchall()
        table: dict[str, dict[str, float]] = {}
        for node, tenant, value in rows:
            table.setdefault(node, {})[tenant] = value
        return table

    def record_report(
        self, node: str, capacity: float, used: dict[str, float], shares: dict[str, float],
        at: float,
    ) -> None:  # fmt: skip
        """Keep a node's report and the shares it was answered with; log the moves."""
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO nodes VALUES (?, ?, ?)", (node, capacity, at))
            db.execute("DELETE FROM rates WHERE node = ?", (node,))
            db.executemany(
                "INSERT INTO rates VALUES (?, ?, ?, ?)",
                [(node, tenant, rate, at) for tenant, rate in used.items()],
            )
            before = dict(
                db.execute("SELECT tenant, bps FROM shares WHERE node = ?", (node,)).fetchall()
            )
            db.execute("DELETE FROM shares WHERE node = ?", (node,))
            db.executemany(
                "INSERT INTO shares VALUES (?, ?, ?, ?)",
                [(node, tenant, bps, at) for tenant, bps in shares.items()],
            )
            moves = [
                (at, node, tenant, before.get(tenant), bps)
                for tenant, bps in shares.items()
                if _moved(before.get(tenant), bps)
            ]
            db.executemany("INSERT INTO share_moves VALUES (?, ?, ?, ?, ?)", moves)

    def share_moves(self, since: float = 0.0) -> list[dict[str, object]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT at, node, tenant, old_bps, new_bps FROM share_moves WHERE at >= ? "
                "ORDER BY at, node, tenant",
                (since,),
            ).fetchall()
        keys = ("at", "node", "tenant", "old_bps", "new_bps")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def _moved(old: float | None, new: float) -> bool:
    return old is None or abs(new - old) > MOVE_FRACTION * max(old, 1.0)
