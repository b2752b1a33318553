"""`contio/jre`: Debian's headless OpenJDK 17 on the base image (for Cassandra)."""

from __future__ import annotations

from contio.images.recipe import Recipe
from contio.images.registry import register


@register
class JreImage(Recipe):
    """The Java runtime Cassandra 5 supports (11 or 17); bookworm ships 17."""

    name = "jre"
    depends = ("debian",)

    def dockerfile(self) -> str:
        return """\
FROM contio/debian:bookworm
RUN apt-get update \\
 && mkdir -p /usr/share/man/man1 \\
 && apt-get install -y openjdk-17-jre-headless \\
 && rm -rf /var/lib/apt/lists/*
"""
