"""PostgreSQL: the smallest shared_buffers when caches are off.

contio's image and the official `postgres` images are driven alike: `psql` as `postgres`
over the local socket, which both trust, creates the `ycsb` role, database and table.
The official entrypoint needs a superuser password (a random one, never used: contio
connects over the socket) and, on first start, runs a temporary server that listens on
the socket only; so readiness is first `pg_isready` over TCP, which only the real server
answers, then a query. PGDATA is set, since the images' default moved in PostgreSQL 18.
"""

from __future__ import annotations

import secrets

from docker.models.containers import Container

from contio.images import postgres as image
from contio.targets.base import (
    CONTIO,
    YCSB_DATABASE,
    YCSB_FIELDS,
    YCSB_PASSWORD,
    YCSB_TABLE,
    YCSB_USER,
    CacheMode,
    DatabaseTarget,
    ProbeResult,
    TargetOptions,
    exec_in,
    pairs,
    run_in,
)
from contio.targets.registry import register

# The layout of YCSB's JDBC binding (PostgreSQL folds the names to lower case).
TABLE = (
    f"CREATE TABLE IF NOT EXISTS {YCSB_TABLE} (YCSB_KEY VARCHAR(255) PRIMARY KEY,"
    + ",".join(f"{field} TEXT" for field in YCSB_FIELDS)
    + ");"
)
ROLE = (
    "DO $$ BEGIN "
    f"IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{YCSB_USER}') THEN "
    f"CREATE ROLE {YCSB_USER} LOGIN PASSWORD '{YCSB_PASSWORD}'; END IF; END $$;"
)
#: what `effective_settings` asks the server for
SETTINGS = ("shared_buffers", "effective_cache_size")


@register
class PostgresTarget(DatabaseTarget):
    """postgres from contio/postgres, or the official `postgres` images."""

    name = "postgres"
    recipe = "postgres"
    port = "5432/tcp"
    data_dir = image.DATA_DIR
    uid = image.UID

    def scratch(self, options: TargetOptions) -> dict[str, str]:
        uid = self.server_uid(options)
        # The socket directory: /var/run/postgresql in the official images is the same place.
        return {"/tmp": "rw,size=64m", image.SOCKET_DIR: f"rw,size=1m,uid={uid},gid={uid}"}

    def server_args(self, options: TargetOptions) -> list[str]:
        if options.cache is CacheMode.MINIMAL:
            # 1 MB = 128 buffers: small enough that reads reach the file system, large
            # enough that concurrent clients do not run out of pinnable buffers.
            return ["-c", "shared_buffers=1MB", "-c", "effective_cache_size=1MB"]
        return []

    def environment(self, options: TargetOptions) -> dict[str, str]:
        if self.family(options.image) == CONTIO:
            return {}
        return {"POSTGRES_PASSWORD": secrets.token_urlsafe(24), "PGDATA": image.DATA_DIR}

    def client(self, sql: str, database: str = "postgres") -> list[str]:
        """argv of `psql` in the container, over the local socket as `postgres`."""
        return [
            "psql", "--host", image.SOCKET_DIR, "--username", "postgres", "--dbname", database,
            "--no-align", "--tuples-only", "--quiet", "--set", "ON_ERROR_STOP=1",
            "--field-separator", "\t", "--command", sql,
        ]  # fmt: skip

    def probe(self, container: Container) -> ProbeResult:
        # Over TCP: an official image's temporary set-up server listens on the socket only.
        # pg_isready says "accepting connections" only after recovery; SELECT 1 proves a query.
        ready = exec_in(container, ["pg_isready", "--host", "127.0.0.1", "--quiet"])
        if not ready.ready:
            return ready
        return exec_in(container, self.client("SELECT 1"))

    def create_schema(self, container: Container) -> None:
        run_in(container, self.client(ROLE))
        exists = run_in(
            container,
            self.client(f"SELECT 1 FROM pg_database WHERE datname = '{YCSB_DATABASE}'"),
        )
        if exists != "1":
            run_in(container, self.client(f"CREATE DATABASE {YCSB_DATABASE} OWNER {YCSB_USER}"))
        run_in(container, self.client(f"SET ROLE {YCSB_USER}; {TABLE}", YCSB_DATABASE))

    def effective_settings(self, container: Container) -> dict[str, str]:
        names = ", ".join(f"'{name}'" for name in SETTINGS)
        sql = f"SELECT name, current_setting(name) FROM pg_settings WHERE name IN ({names})"
        return pairs(run_in(container, self.client(sql)))
