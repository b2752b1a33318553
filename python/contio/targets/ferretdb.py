"""FerretDB (MongoDB wire protocol) on SQLite: the YCSB collection in database `ycsb`.

FerretDB ships no shell client, so the probe and the schema go through pymongo from
the host to the port published on 127.0.0.1: a real MongoDB `ping` and `create`.
"""

from __future__ import annotations

from docker.models.containers import Container
from pymongo import MongoClient
from pymongo.errors import CollectionInvalid, PyMongoError

from contio.errors import RuntimeUnavailableError
from contio.images import ferretdb as image
from contio.runtime.docker import published_port
from contio.targets.base import (
    YCSB_DATABASE,
    YCSB_TABLE,
    DatabaseTarget,
    ProbeResult,
    TargetOptions,
)
from contio.targets.registry import register


@register
class FerretdbTarget(DatabaseTarget):
    """ferretdb from contio/ferretdb with the sqlite handler."""

    name = "ferretdb"
    recipe = "ferretdb"
    port = "27017/tcp"
    data_dir = image.DATA_DIR
    uid = image.UID

    def server_args(self, options: TargetOptions) -> list[str]:
        # SQLite's own page cache is small (2 MB) and not configurable through FerretDB 1.x.
        return []

    def client(self, container: Container) -> MongoClient:
        """A pymongo client of the server (the caller closes it)."""
        port = published_port(container, self.port)
        return MongoClient(
            "127.0.0.1", port, serverSelectionTimeoutMS=2000, connectTimeoutMS=2000,
            directConnection=True,
        )  # fmt: skip

    def probe(self, container: Container) -> ProbeResult:
        try:
            with self.client(container) as client:
                client.admin.command("ping")
        except (PyMongoError, RuntimeUnavailableError) as exc:
            # RuntimeUnavailableError: the container stopped and its port went with it.
            return ProbeResult(False, str(exc)[:300])
        return ProbeResult(True, "ping ok")

    def create_schema(self, container: Container) -> None:
        with self.client(container) as client:
            try:
                client[YCSB_DATABASE].create_collection(YCSB_TABLE)
            except CollectionInvalid:
                pass  # already there
