"""The targets a spec may name: the engine's own, and the database targets.

An engine target is what `contio-engine` drives (`docs/engine-interface.md`). Embedded
targets keep their files in a directory that the backend provides; the runner
passes it through the target's own property (`lsm.dir`, `btree.dir`).

A database target (`contio.targets.registry`: mariadb, postgres, redis, cassandra,
ferretdb) is a server in a container, driven by the engine target that speaks its
protocol (`DATABASE_BINDINGS`); it needs the docker runtime. This module names them
without importing the Docker SDK, so specs validate cheaply.
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


EMBEDDED_ENGINES: tuple[str, ...] = tuple(
    name for name, t in TARGETS.items() if t.data_dir_property is not None
)
"""The engine's own storage engines (they keep files where the cell's data lives)."""


DATABASE_BINDINGS: dict[str, str] = {
    "mariadb": "mysql",
    "postgres": "postgres",
    "redis": "redis",
    "cassandra": "cassandra",
    "ferretdb": "mongodb",
    "mongodb": "mongodb",
}
"""Database target → the engine target that speaks its protocol (the registry's order)."""


def is_database(name: str) -> bool:
    """Whether `name` is a database target (a server container; docker runtime only)."""
    return name in DATABASE_BINDINGS


def engine_target_of(name: str) -> EngineTarget:
    """The engine target that runs for target `name` (a database's binding, or itself)."""
    return TARGETS[DATABASE_BINDINGS.get(name, name)]


def target_names() -> list[str]:
    """Known target names (engine targets, then database targets), as users see them listed."""
    return list(dict.fromkeys([*TARGETS, *DATABASE_BINDINGS]))


def namespace_owner(key: str) -> EngineTarget | None:
    """The known target whose namespace holds property `key`, if any."""
    for target in TARGETS.values():
        if target.owns_property(key):
            return target
    return None
