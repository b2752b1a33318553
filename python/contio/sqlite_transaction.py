"""One write transaction on an autocommit SQLite connection, shared by the results index
and the middleware coordinator's store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE (the write lock at once, so two writers never deadlock upgrading a
    read lock) … COMMIT, or ROLLBACK on any exception, interrupts included."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
