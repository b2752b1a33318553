"""Cassandra: key, row and counter caches off and no chunk cache when caches are off."""

from __future__ import annotations

from typing import ClassVar

from docker.models.containers import Container

from contio.images import cassandra as image
from contio.targets.base import (
    YCSB_DATABASE,
    YCSB_TABLE,
    CacheMode,
    DatabaseTarget,
    ProbeResult,
    TargetOptions,
    exec_in,
    run_in,
)
from contio.targets.registry import register

# The layout of YCSB's Cassandra CQL binding: y_id and field0..field9.
KEYSPACE = (
    f"CREATE KEYSPACE IF NOT EXISTS {YCSB_DATABASE} WITH replication = "
    "{'class': 'SimpleStrategy', 'replication_factor': 1};"
)
TABLE = (
    f"CREATE TABLE IF NOT EXISTS {YCSB_DATABASE}.{YCSB_TABLE} (y_id varchar PRIMARY KEY, "
    + ", ".join(f"field{i} varchar" for i in range(10))
    + ");"
)
MINIMAL_CACHES = """\
key_cache_size: 0MiB
row_cache_size: 0MiB
counter_cache_size: 0MiB
file_cache_enabled: false
"""
# Heap when no memory limit is given; with one, a third of it (the rest is off-heap
# memtables, thread stacks and the page cache the limit is meant to squeeze).
DEFAULT_HEAP_MB = 512
MIN_HEAP_MB = 256


def _megabytes(size: str) -> int:
    units = {"k": 1 / 1024, "m": 1, "g": 1024}
    size = size.strip().lower().rstrip("b")
    if size and size[-1] in units:
        return int(float(size[:-1]) * units[size[-1]])
    return int(size) // (1024 * 1024)


@register
class CassandraTarget(DatabaseTarget):
    """CassandraDaemon from contio/cassandra (single node)."""

    name = "cassandra"
    recipe = "cassandra"
    port = "9042/tcp"
    data_dir = image.DATA_DIR
    uid = image.UID
    tmpfs: ClassVar[dict[str, str]] = {"/tmp": "rw,size=128m,exec"}

    def server_args(self, options: TargetOptions) -> list[str]:
        return []

    def environment(self, options: TargetOptions) -> dict[str, str]:
        heap = DEFAULT_HEAP_MB
        if options.mem_limit is not None:
            heap = max(MIN_HEAP_MB, min(heap, _megabytes(options.mem_limit) // 3))
        extra = MINIMAL_CACHES if options.cache is CacheMode.MINIMAL else ""
        # HOME on tmpfs: the JVM and cqlsh keep caches there, not in the data directory.
        return {"CASSANDRA_HEAP": f"{heap}m", "CASSANDRA_EXTRA_YAML": extra, "HOME": "/tmp"}

    def client(self, cql: str) -> list[str]:
        """argv of `cqlsh` in the container."""
        return ["cqlsh", "--no-color", "--request-timeout=30", "--execute", cql]

    def probe(self, container: Container) -> ProbeResult:
        # cqlsh keeps its history in $HOME: point it at the writable /tmp.
        return exec_in(
            container, self.client("SELECT release_version FROM system.local"), {"HOME": "/tmp"}
        )

    def create_schema(self, container: Container) -> None:
        run_in(container, self.client(KEYSPACE + TABLE), {"HOME": "/tmp"})
