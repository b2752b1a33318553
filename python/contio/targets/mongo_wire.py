"""What the MongoDB-protocol targets share: readiness and schema through pymongo.

FerretDB ships no shell client, and the official `mongo` images changed theirs (`mongo`
until 5.0, `mongosh` since), so the probe and the schema go through pymongo from the
host to the port published on 127.0.0.1: a real MongoDB `ping` and `create`, the same
code for both servers.
"""

from __future__ import annotations

import contextlib

from docker.models.containers import Container
from pymongo import MongoClient
from pymongo.errors import CollectionInvalid, PyMongoError

from contio.containers.docker_runtime import published_port
from contio.errors import RuntimeUnavailableError
from contio.targets.base import YCSB_DATABASE, YCSB_TABLE, DatabaseTarget, ProbeResult


class MongoWireTarget(DatabaseTarget):
    """A server that speaks the MongoDB wire protocol on `port`."""

    port = "27017/tcp"

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
        # The collection may be there already: creating it twice is fine.
        with self.client(container) as client, contextlib.suppress(CollectionInvalid):
            client[YCSB_DATABASE].create_collection(YCSB_TABLE)
