"""Cassandra: key, row and counter caches off and no chunk cache when caches are off.

contio's image takes its cache sizes as extra cassandra.yaml lines (CASSANDRA_EXTRA_YAML)
and its heap as CASSANDRA_HEAP. The official `cassandra` images configure themselves
differently: their entrypoint rewrites /etc/cassandra/cassandra.yaml in place (so the
root file system stays writable for them), the heap comes from MAX_HEAP_SIZE and
HEAP_NEWSIZE, and extra JVM options from JVM_EXTRA_OPTS. Cassandra 4.1 and later read
settings from `cassandra.settings.*` system properties there; older versions ignore
them, so `create_schema` also sets the key, row and counter cache capacities at run time
with `nodetool setcachecapacity` (every version has it; the chunk cache of 3.x and 4.0
cannot be changed that way and keeps its default).
"""

from __future__ import annotations

from typing import ClassVar

from docker.models.containers import Container

from contio.images import cassandra as image
from contio.targets.base import (
    CONTIO,
    YCSB_DATABASE,
    YCSB_TABLE,
    CacheMode,
    DatabaseTarget,
    ProbeResult,
    TargetOptions,
    exec_in,
    pairs,
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
#: the minimal-cache settings, by their cassandra.yaml names (Cassandra 4.1+)
MINIMAL_SETTINGS = {
    "key_cache_size": "0MiB",
    "row_cache_size": "0MiB",
    "counter_cache_size": "0MiB",
    "file_cache_enabled": "false",
}
MINIMAL_CACHES = "".join(f"{name}: {value}\n" for name, value in MINIMAL_SETTINGS.items())
# The same for an official image, as JVM system properties (read by 4.1 and later).
MINIMAL_PROPERTIES = " ".join(
    ["-Dcassandra.config.allow_system_properties=true"]
    + [f"-Dcassandra.settings.{name}={value}" for name, value in MINIMAL_SETTINGS.items()]
)
#: key, row and counter cache capacities in MiB (`nodetool setcachecapacity`)
NODETOOL_CAPACITIES = ["setcachecapacity", "0", "0", "0"]
#: the caches `nodetool info` reports on an official image
NODETOOL_CACHES = ("Key Cache", "Row Cache", "Counter Cache", "Chunk Cache")
# cqlsh and nodetool keep history files in $HOME: point it at the writable /tmp.
TOOL_ENV = {"HOME": "/tmp"}
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

    def read_only(self, options: TargetOptions) -> bool:
        # The official entrypoint edits cassandra.yaml in place (sed -i) before starting.
        return self.family(options.image) == CONTIO

    def environment(self, options: TargetOptions) -> dict[str, str]:
        heap = DEFAULT_HEAP_MB
        if options.mem_limit is not None:
            heap = max(MIN_HEAP_MB, min(heap, _megabytes(options.mem_limit) // 3))
        minimal = options.cache is CacheMode.MINIMAL
        if self.family(options.image) != CONTIO:
            # cassandra-env.sh wants both heap sizes or neither.
            env = {"MAX_HEAP_SIZE": f"{heap}M", "HEAP_NEWSIZE": f"{max(heap // 4, 32)}M"}
            if minimal:
                env["JVM_EXTRA_OPTS"] = MINIMAL_PROPERTIES
            return env | TOOL_ENV
        extra = MINIMAL_CACHES if minimal else ""
        # HOME on tmpfs: the JVM and cqlsh keep caches there, not in the data directory.
        return {"CASSANDRA_HEAP": f"{heap}m", "CASSANDRA_EXTRA_YAML": extra} | TOOL_ENV

    def client(self, cql: str) -> list[str]:
        """argv of `cqlsh` in the container."""
        return ["cqlsh", "--no-color", "--request-timeout=30", "--execute", cql]

    def probe(self, container: Container) -> ProbeResult:
        return exec_in(container, self.client("SELECT release_version FROM system.local"), TOOL_ENV)

    def create_schema(self, container: Container) -> None:
        run_in(container, self.client(KEYSPACE + TABLE), TOOL_ENV)
        if self.container_family(container) != CONTIO and _asks_minimal(container):
            # Cassandra before 4.1 ignored the system properties; set what can be set now.
            run_in(container, ["nodetool", *NODETOOL_CAPACITIES], TOOL_ENV)

    def effective_settings(self, container: Container) -> dict[str, str]:
        if self.container_family(container) != CONTIO:
            # 3.x has no settings table; `nodetool info` gives every version's capacities.
            return nodetool_caches(run_in(container, ["nodetool", "info"], TOOL_ENV))
        names = ", ".join(f"'{name}'" for name in MINIMAL_SETTINGS)
        cql = f"SELECT name, value FROM system_views.settings WHERE name IN ({names});"
        return cqlsh_rows(run_in(container, self.client(cql), TOOL_ENV))


def _asks_minimal(container: Container) -> bool:
    """Whether the container was started with the minimal-cache properties."""
    env = dict(item.split("=", 1) for item in container.attrs["Config"].get("Env") or [])
    return "cassandra.settings.key_cache_size" in env.get("JVM_EXTRA_OPTS", "")


def cqlsh_rows(output: str) -> dict[str, str]:
    """The two columns of a cqlsh result table (`name | value` rows after the rule)."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("---")), None)
    if start is None:
        return {}
    return pairs("\n".join(lines[start + 1 :]), separator="|")


def nodetool_caches(output: str) -> dict[str, str]:
    """Each cache's capacity from `nodetool info` (`Key Cache : entries 0, …, capacity 0 bytes, …`)."""
    settings = {}
    for name, value in pairs(output, separator=":").items():
        if name in NODETOOL_CACHES:
            capacity = [part.strip() for part in value.split(",") if "capacity" in part]
            if capacity:
                settings[f"{name} capacity"] = capacity[0].removeprefix("capacity ").strip()
    return settings
