"""MariaDB and MySQL (MySQL protocol): InnoDB with a minimal buffer pool and O_DIRECT when
caches are off.

contio's image (`contio/mariadb`) authenticates the `mysql` account over the socket, so
the probe and the schema need no password. The official `mysql` and `mariadb` images
create the database and the `ycsb` account from environment variables on first start,
running a temporary server without networking meanwhile; their probe therefore goes over
TCP as `ycsb` (the temporary server cannot answer it), and the schema is created by
`ycsb`, which owns the database. Their root password is random and never used.
"""

from __future__ import annotations

from docker.models.containers import Container

from contio.images import mariadb as image
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

# The layout of YCSB's JDBC binding, so numbers compare.
TABLE = (
    f"CREATE TABLE IF NOT EXISTS {YCSB_DATABASE}.{YCSB_TABLE} (YCSB_KEY VARCHAR(255) PRIMARY KEY,"
    + ",".join(f"{field} TEXT" for field in YCSB_FIELDS)
    + ");"
)
# contio's image: the socket-authenticated `mysql` account makes the database and the user.
SCHEMA = (
    f"CREATE DATABASE IF NOT EXISTS {YCSB_DATABASE};"
    + TABLE
    + f"CREATE USER IF NOT EXISTS '{YCSB_USER}'@'%' IDENTIFIED BY '{YCSB_PASSWORD}';"
    f"GRANT ALL ON {YCSB_DATABASE}.* TO '{YCSB_USER}'@'%';"
)
#: what `effective_settings` asks the server for
SETTINGS = (
    "innodb_buffer_pool_size",
    "innodb_flush_method",
    "query_cache_type",
    "query_cache_size",
)
# The smallest buffer pool InnoDB accepts with 16 KiB pages, and O_DIRECT so the page
# cache does not stand in for it. The query cache is off; MySQL 8 has none, so those
# options carry the `loose-` prefix, which makes a server that does not know them ignore
# them with a warning instead of refusing to start.
MINIMAL_ARGS = [
    "--innodb-buffer-pool-size=6M",
    "--innodb-flush-method=O_DIRECT",
    "--loose-query-cache-type=0",
    "--loose-query-cache-size=0",
]


@register
class MariadbTarget(DatabaseTarget):
    """mariadbd from contio/mariadb, or the official `mariadb` / `mysql` images."""

    name = "mariadb"
    recipe = "mariadb"
    port = "3306/tcp"
    data_dir = image.DATA_DIR
    uid = image.UID

    def scratch(self, options: TargetOptions) -> dict[str, str]:
        uid = self.server_uid(options)
        # The socket directory: /var/run is /run in Debian and Oracle Linux images alike.
        return {"/tmp": "rw,size=64m", "/run/mysqld": f"rw,size=1m,uid={uid},gid={uid}"}

    def server_args(self, options: TargetOptions) -> list[str]:
        return list(MINIMAL_ARGS) if options.cache is CacheMode.MINIMAL else []

    def environment(self, options: TargetOptions) -> dict[str, str]:
        family = self.family(options.image)
        if family == CONTIO:
            return {}
        # Both entrypoints read MYSQL_*; the mariadb one prefers MARIADB_* when set.
        prefixes = ("MYSQL", "MARIADB") if family == "mariadb" else ("MYSQL",)
        env: dict[str, str] = {}
        for prefix in prefixes:
            env |= {
                f"{prefix}_RANDOM_ROOT_PASSWORD": "yes",
                f"{prefix}_DATABASE": YCSB_DATABASE,
                f"{prefix}_USER": YCSB_USER,
                f"{prefix}_PASSWORD": YCSB_PASSWORD,
            }
        return env

    def client(self, sql: str, database: str | None = None) -> list[str]:
        """argv of the `mariadb` client in contio's image (account `mysql`, socket-authenticated)."""
        argv = [
            "mariadb",
            f"--socket={image.SOCKET}",
            "--user=mysql",
            "--batch",
            "--skip-column-names",
        ]
        if database:
            argv.append(f"--database={database}")
        return [*argv, "--execute", sql]

    def tcp_client(self, family: str, sql: str) -> list[str]:
        """argv of the image's own client as `ycsb` over TCP (password in MYSQL_PWD)."""
        # MariaDB 11 images have only `mariadb`; MySQL images only `mysql`.
        program = "mariadb" if family == "mariadb" else "mysql"
        return [
            program, "--protocol=TCP", "--host=127.0.0.1", "--port=3306", f"--user={YCSB_USER}",
            f"--database={YCSB_DATABASE}", "--batch", "--skip-column-names", "--execute", sql,
        ]  # fmt: skip

    def _query(self, container: Container, sql: str) -> tuple[list[str], dict[str, str]]:
        """argv and environment that run `sql` with the image's own client."""
        family = self.container_family(container)
        if family == CONTIO:
            return self.client(sql), {}
        return self.tcp_client(family, sql), {"MYSQL_PWD": YCSB_PASSWORD}

    def probe(self, container: Container) -> ProbeResult:
        return exec_in(container, *self._query(container, "SELECT 1"))

    def create_schema(self, container: Container) -> None:
        # An official image's entrypoint made the database and `ycsb`, which owns it.
        sql = SCHEMA if self.container_family(container) == CONTIO else TABLE
        run_in(container, *self._query(container, sql))

    def effective_settings(self, container: Container) -> dict[str, str]:
        names = ", ".join(f"'{name}'" for name in SETTINGS)
        sql = f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({names})"
        return pairs(run_in(container, *self._query(container, sql)))
