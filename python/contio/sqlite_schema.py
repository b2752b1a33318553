"""Bringing an SQLite file made by an older contio up to its current schema, shared by
the results index and the middleware coordinator's store."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping


def add_missing_columns(db: sqlite3.Connection, table: str, columns: Mapping[str, str]) -> None:
    """Add each of `columns` (name → declaration) that `table` lacks; old rows get NULL or
    the declared default. A table that does not exist yet is left to its CREATE."""
    have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    for column, declaration in columns.items():
        if have and column not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
