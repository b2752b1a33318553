"""MongoDB from an official `mongo` image (a registry is needed: there is no offline
MongoDB; FerretDB is the offline server of this protocol).

The entrypoint prepends `mongod` to arguments that start with `-` and, without
MONGO_INITDB_ROOT_* variables, starts the server without authentication; like every
target it listens only on the experiment's network and on 127.0.0.1. Caches minimal:
WiredTiger's cache at its smallest (0.25 GB).
"""

from __future__ import annotations

from docker.models.containers import Container

from contio.targets.base import REGISTRY_UID, CacheMode, TargetOptions
from contio.targets.mongo_wire import MongoWireTarget
from contio.targets.registry import register

#: the smallest WiredTiger cache mongod accepts, in GB
MINIMAL_CACHE_GB = "0.25"
CACHE_SETTING = "wiredTiger.cache.maximum bytes configured"


@register
class MongodbTarget(MongoWireTarget):
    """mongod from an official `mongo` image named in TargetOptions.image."""

    name = "mongodb"
    recipe = None
    data_dir = "/data/db"
    uid = REGISTRY_UID

    def server_args(self, options: TargetOptions) -> list[str]:
        if options.cache is CacheMode.MINIMAL:
            return ["--wiredTigerCacheSizeGB", MINIMAL_CACHE_GB]
        return []

    def effective_settings(self, container: Container) -> dict[str, str]:
        with self.client(container) as client:
            status = client.admin.command("serverStatus")
        return wiredtiger_settings(status)


def wiredtiger_settings(server_status: dict) -> dict[str, str]:
    """The WiredTiger cache size from a `serverStatus` reply."""
    cache = server_status.get("wiredTiger", {}).get("cache", {})
    value = cache.get("maximum bytes configured")
    return {CACHE_SETTING: str(int(value))} if value is not None else {}
