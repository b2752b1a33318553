"""FerretDB (MongoDB wire protocol) on SQLite: the YCSB collection in database `ycsb`.

Caches minimal: SQLite's page cache per connection (2 MB by default) shrinks to its
floor of 10 pages through a `_pragma` of the SQLite URL, which FerretDB hands to its
SQLite driver for every connection it opens.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from docker.models.containers import Container

from contio.images import ferretdb as image
from contio.targets.base import CacheMode, TargetOptions
from contio.targets.mongo_wire import MongoWireTarget
from contio.targets.registry import register

SQLITE_URL = f"file:{image.DATA_DIR}/"
#: SQLite keeps at least 10 pages per connection whatever cache_size says
MINIMAL_PRAGMAS = ("cache_size(10)",)


@register
class FerretdbTarget(MongoWireTarget):
    """ferretdb from contio/ferretdb with the sqlite handler."""

    name = "ferretdb"
    recipe = "ferretdb"
    data_dir = image.DATA_DIR
    uid = image.UID

    def server_args(self, options: TargetOptions) -> list[str]:
        url = SQLITE_URL
        if options.cache is CacheMode.MINIMAL:
            url += "?" + "&".join(f"_pragma={pragma}" for pragma in MINIMAL_PRAGMAS)
        return [f"--sqlite-url={url}"]

    def effective_settings(self, container: Container) -> dict[str, str]:
        """The SQLite pragmas on the server's command line (`cache_size` → `10`).

        FerretDB answers no settings query (its getCmdLineOpts returns a fixed argv), so
        this reads the running server process's command line (`docker top`).
        """
        # Docker needs the PID column to list processes; the command line is the last one.
        # `-ww`: ps cuts `args` at the width it believes the screen has, and dockerd started
        # with COLUMNS=80 in its environment cut the URL before its pragmas.
        top = container.top(ps_args="-ww -o pid,args")
        commands = [process[-1] for process in top.get("Processes") or []]
        url = next(
            (arg.split("=", 1)[1] for command in commands for arg in command.split()
             if arg.startswith("--sqlite-url=")),
            "",
        )  # fmt: skip
        settings = {"sqlite-url": url}
        for pragma in parse_qs(urlsplit(url).query).get("_pragma", []):
            name, _, value = pragma.partition("(")
            settings[name] = value.rstrip(")")
        return settings
