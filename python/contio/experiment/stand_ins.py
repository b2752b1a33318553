"""Stand-ins: a target that runs in place of the system a paper's finding is about.

Paper 000 (docs/papers.md) measured MongoDB; contio's offline image serves MongoDB's
protocol with FerretDB on SQLite. Paper 003 ran MySQL and Cassandra; its `small` profile
runs contio's embedded `btree` and `lsm` engines. A verdict measured on a stand-in is a
verdict about the stand-in: `stand_in` says so, with what the stand-in can and cannot
show about the paper's system. A system not listed here (a storage layout, a kernel
mechanism) has no stand-ins: the cells run it or do not.
"""

from __future__ import annotations

from dataclasses import dataclass

SYSTEM_TARGETS: dict[str, tuple[str, ...]] = {
    "mongodb": ("mongodb",),
    "mysql": (),
    "mariadb": ("mariadb",),
    "cassandra": ("cassandra",),
    "postgresql": ("postgres",),
    "redis": ("redis",),
}
"""A database system (lower case) → the targets that are that system itself. MySQL has
none: contio's `mariadb` target is a fork of it (a stand-in, if a close one)."""


@dataclass(frozen=True)
class StandIn:
    """A target standing in for a finding's system, and what it can and cannot show."""

    system: str
    target: str
    can_show: str
    cannot_show: str

    def sentence(self) -> str:
        """One sentence for a report: the verdict is the stand-in's, and its limits."""
        return (
            f"Measured on {self.target}, a stand-in for {self.system}: the verdict is about "
            f"{self.target}, not {self.system}. It can show {self.can_show}; it cannot show "
            f"{self.cannot_show}."
        )


_NOTHING = (
    "the client's own cost (the null target does no storage I/O)",
    "anything about storage: no data reaches the backend",
)

_KNOWN: dict[tuple[str, str], tuple[str, str]] = {
    ("mongodb", "ferretdb"): (
        (
            "what the storage costs a MongoDB-wire server whose data is one SQLite database "
            "file with its write-ahead log"
        ),
        (
            "MongoDB's own storage engine (WiredTiger's few large files, its cache and "
            "checkpoints), which is what paper 000's large-file explanation is about"
        ),
    ),
    ("mongodb", "btree"): (
        (
            "how a few large files updated in place fare on the storage (the layout paper 000 "
            "credits for MongoDB's result)"
        ),
        "MongoDB's server, protocol, cache or journal",
    ),
    ("mysql", "mariadb"): (
        "a MySQL-compatible server with the InnoDB engine on the storage",
        "MySQL's own version of InnoDB and server, nor the paper's TPC-C client",
    ),
    ("mysql", "btree"): (
        "how one large B-tree file updated in place fares on the storage",
        "InnoDB's buffer pool, redo log and doublewrite buffer, nor TPC-C's transactions",
    ),
    ("cassandra", "lsm"): (
        (
            "how a log-structured engine (append, flush, compact many files) fares on the "
            "storage (the layout paper 000 credits for Cassandra's result)"
        ),
        "Cassandra's JVM, commit log, compaction strategy or cassandra-stress's load",
    ),
}


def is_system(system: str, target: str) -> bool:
    """Whether `target` runs `system` itself (True for systems contio has no table of)."""
    own = SYSTEM_TARGETS.get(system.lower())
    return own is None or target in own


def stand_in(system: str | None, target: str | None) -> StandIn | None:
    """The stand-in `target` is for `system`, None when it is the system (or no database
    system is named). A file workload (no target) is no stand-in."""
    if system is None or target is None or is_system(system, target):
        return None
    if target == "null":
        can, cannot = _NOTHING
    else:
        can, cannot = _KNOWN.get(
            (system.lower(), target),
            (
                f"how {target}'s own storage pattern fares on the storage",
                f"{system}'s storage engine, caches or server",
            ),
        )
    return StandIn(system, target, can, cannot)
