"""The engine's targets that contio knows how to place on a backend, by name.

A target is what `contio-engine` drives (`docs/engine-interface.md`). Embedded
targets keep their files in a directory that the backend provides; the runner
passes it through the target's own property (`lsm.dir`, `btree.dir`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineTarget:
    """A target of `contio-engine` and how contio places its data."""

    name: str
    """The name the engine knows it by (`contio-engine load NAME`)."""
    data_dir_property: str | None
    """The engine property that tells the target where to keep its files; None if it keeps none."""
    summary: str

    def owns_property(self, key: str) -> bool:
        """Whether `key` lives in this target's namespace (`lsm.cache_bytes` for `lsm`)."""
        return key.startswith(f"{self.name}.")


TARGETS: dict[str, EngineTarget] = {
    t.name: t
    for t in (
        EngineTarget("null", None, "does nothing; measures the client itself"),
        EngineTarget("lsm", "lsm.dir", "embedded log-structured engine, many small files"),
        EngineTarget("btree", "btree.dir", "embedded B-tree engine, one large file"),
        # Database bindings: the data lives with the server (contio.targets), not the engine.
        EngineTarget("mysql", None, "MySQL / MariaDB server (YCSB JDBC layout)"),
        EngineTarget("postgres", None, "PostgreSQL server (YCSB JDBC layout)"),
        EngineTarget("redis", None, "Redis server (hash per key, sorted-set scan index)"),
        EngineTarget("mongodb", None, "MongoDB-wire server such as FerretDB (_id-keyed documents)"),
        EngineTarget("cassandra", None, "Cassandra CQL server (ycsb.usertable)"),
    )
}


def target_names() -> list[str]:
    """Known target names, in the order users see them listed."""
    return list(TARGETS)


def namespace_owner(key: str) -> EngineTarget | None:
    """The known target whose namespace holds property `key`, if any."""
    for target in TARGETS.values():
        if target.owns_property(key):
            return target
    return None
