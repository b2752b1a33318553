"""`contio/redis`: Debian's Redis server, run as the `redis` user with data in /data."""

from __future__ import annotations

from contio.images.recipe import Recipe
from contio.images.registry import register

UID = 997
DATA_DIR = "/data"


@register
class RedisImage(Recipe):
    """redis-server and redis-tools from bookworm."""

    name = "redis"
    depends = ("debian",)

    def dockerfile(self) -> str:
        return f"""\
FROM contio/debian:bookworm
RUN groupadd --system --gid {UID} redis \\
 && useradd --system --uid {UID} --gid redis --home-dir /var/lib/redis --no-create-home \\
    --shell /usr/sbin/nologin redis \\
 && apt-get update && apt-get install -y redis-server redis-tools \\
 && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p {DATA_DIR} && chown redis:redis {DATA_DIR}
USER redis
WORKDIR {DATA_DIR}
VOLUME {DATA_DIR}
EXPOSE 6379
ENTRYPOINT ["redis-server"]
"""
