"""Redis: an append-only file on the data directory; fsync on every write when caches are off.

Redis keeps the whole data set in memory by design, so "caches off" cannot apply to
reads; what reaches storage is the append-only file, fsynced each second by default
and on every write in the minimal mode.

The official `redis` images run the same way: their entrypoint prepends `redis-server`
to arguments that start with `-`, and skips its chown when not started as root.
"""

from __future__ import annotations

from docker.models.containers import Container

from contio.images import redis as image
from contio.targets.base import (
    CacheMode,
    DatabaseTarget,
    ProbeResult,
    TargetOptions,
    exec_in,
    run_in,
)
from contio.targets.registry import register

#: what `effective_settings` asks the server for (`CONFIG GET`, one name at a time:
#: Redis before 7 takes a single pattern)
SETTINGS = ("appendonly", "appendfsync", "save", "maxmemory")


@register
class RedisTarget(DatabaseTarget):
    """redis-server from contio/redis, or the official `redis` images."""

    name = "redis"
    recipe = "redis"
    port = "6379/tcp"
    data_dir = image.DATA_DIR
    uid = image.UID

    def server_args(self, options: TargetOptions) -> list[str]:
        fsync = "always" if options.cache is CacheMode.MINIMAL else "everysec"
        # No snapshots: the append-only file alone carries the data to storage.
        # Protected mode off: the server is reachable only on the experiment's network.
        return [
            "--bind", "0.0.0.0", "--protected-mode", "no", "--dir", image.DATA_DIR,
            "--appendonly", "yes", "--appendfsync", fsync, "--save", "",
        ]  # fmt: skip

    def client(self, *command: str) -> list[str]:
        """argv of `redis-cli` in the container."""
        return ["redis-cli", "--no-raw", *command]

    def probe(self, container: Container) -> ProbeResult:
        # While loading the append-only file Redis answers LOADING, not PONG.
        result = exec_in(container, self.client("PING"))
        return ProbeResult(result.ready and result.detail == "PONG", result.detail)

    def create_schema(self, container: Container) -> None:
        """Nothing to create: YCSB's Redis binding stores a hash per key and a sorted-set index."""

    def effective_settings(self, container: Container) -> dict[str, str]:
        settings = {}
        for name in SETTINGS:
            # --raw prints the name, then the value on its own line (empty for `save ""`).
            lines = run_in(container, ["redis-cli", "--raw", "CONFIG", "GET", name]).split("\n")
            settings[name] = lines[1].strip() if len(lines) > 1 else ""
        return settings
