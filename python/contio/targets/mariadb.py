"""MariaDB (MySQL protocol): InnoDB with a minimal buffer pool and O_DIRECT when caches are off."""

from __future__ import annotations

from typing import ClassVar

from docker.models.containers import Container

from contio.images import mariadb as image
from contio.targets.base import (
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
    run_in,
)
from contio.targets.registry import register

# The layout of YCSB's JDBC binding, so numbers compare.
SCHEMA = (
    f"CREATE DATABASE IF NOT EXISTS {YCSB_DATABASE};"
    f"CREATE TABLE IF NOT EXISTS {YCSB_DATABASE}.{YCSB_TABLE} (YCSB_KEY VARCHAR(255) PRIMARY KEY,"
    + ",".join(f"{field} TEXT" for field in YCSB_FIELDS)
    + ");"
    f"CREATE USER IF NOT EXISTS '{YCSB_USER}'@'%' IDENTIFIED BY '{YCSB_PASSWORD}';"
    f"GRANT ALL ON {YCSB_DATABASE}.* TO '{YCSB_USER}'@'%';"
)


@register
class MariadbTarget(DatabaseTarget):
    """mariadbd from contio/mariadb."""

    name = "mariadb"
    recipe = "mariadb"
    port = "3306/tcp"
    data_dir = image.DATA_DIR
    uid = image.UID
    tmpfs: ClassVar[dict[str, str]] = {
        "/tmp": "rw,size=64m",
        "/run/mysqld": f"rw,size=1m,uid={image.UID},gid={image.UID}",
    }

    def server_args(self, options: TargetOptions) -> list[str]:
        if options.cache is CacheMode.MINIMAL:
            # The smallest buffer pool InnoDB accepts with 16 KiB pages, and O_DIRECT so the page cache
            # does not stand in for it; the query cache stays off.
            return [
                "--innodb-buffer-pool-size=6M",
                "--innodb-flush-method=O_DIRECT",
                "--query-cache-type=0",
                "--query-cache-size=0",
            ]
        return []

    def client(self, sql: str, database: str | None = None) -> list[str]:
        """argv of the `mariadb` client in the container (account `mysql`, socket-authenticated)."""
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

    def probe(self, container: Container) -> ProbeResult:
        return exec_in(container, self.client("SELECT 1"))

    def create_schema(self, container: Container) -> None:
        run_in(container, self.client(SCHEMA))
