"""`contio/ferretdb`: FerretDB 1.x (MongoDB wire protocol) with its embedded SQLite backend.

FerretDB 2 needs PostgreSQL with the DocumentDB extension, which Debian does not
ship; 1.24 still has the `sqlite` handler, so one process serves the MongoDB
protocol with data files in /data. Built with the Go toolchain from the Go module
proxy, vendored so that its version file (absent from the module zip) can be filled
and one upstream bug fixed (`ID_LOOKUP_FIX`).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from contio.errors import ImageBuildError
from contio.images.recipe import Input, Recipe, build_log_path, cache_root, require_program
from contio.images.registry import register

VERSION = "v1.24.0"
MODULE = "github.com/FerretDB/FerretDB"
UID = 995
DATA_DIR = "/data"

GO_MOD = f"module contio.local/ferretdb-build\n\ngo 1.22\n\nrequire {MODULE} {VERSION}\n"
# Makes `go mod tidy` keep FerretDB's command and all it imports.
TOOLS_GO = f'//go:build tools\n\npackage tools\n\nimport _ "{MODULE}/cmd/ferretdb"\n'

# FerretDB 1.24's SQLite backend looks documents up by `_id` (find, update, delete
# with an `_id` equality filter) with `_ferretdb_sjson->'$._id' = ?`, while the
# collection's unique `_id_` index is on `_ferretdb_sjson->"_id"`. Both name the
# same JSON member, but SQLite uses an index on an expression only for the same
# expression, so every such lookup scanned the whole table (EXPLAIN QUERY PLAN:
# `SCAN`; a 10,000-record read-back took over 10 minutes). The fix spells the lookup
# as the index does (`->'_id'`, which SQLite resolves to the index's expression), so
# lookups `SEARCH ... USING INDEX`. Tables made before the fix keep working: the
# index they carry is the same one.
ID_LOOKUP_FIX = (
    "internal/backends/sqlite/metadata/metadata.go",
    "IDColumn = DefaultColumn + \"->'$._id'\"",
    "IDColumn = DefaultColumn + \"->'_id'\"",
)


def _go(args: list[str], cwd: Path, out) -> None:
    env = dict(os.environ, CGO_ENABLED="0")
    result = subprocess.run(
        ["go", *args], cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, check=False
    )
    if result.returncode != 0:
        raise ImageBuildError(f"`go {' '.join(args)}` failed; see {out.name}")


def _fix_id_lookup(vendored: Path) -> None:
    """Apply ID_LOOKUP_FIX to the vendored module; an error if the line is not there."""
    relative, old, new = ID_LOOKUP_FIX
    path = vendored / relative
    text = path.read_text()
    if text.count(old) != 1:
        raise ImageBuildError(
            f"FerretDB {VERSION}: expected one `{old}` in {path}; the `_id` lookup fix "
            "no longer applies (a different FerretDB version?)"
        )
    path.write_text(text.replace(old, new))


def build_ferretdb() -> Path:
    """The static FerretDB binary, built once per version and fix into the cache."""
    fix = hashlib.sha256("\0".join(ID_LOOKUP_FIX).encode()).hexdigest()[:12]
    root = cache_root() / "downloads" / f"ferretdb-{VERSION}-{fix}"
    binary = root / "bin" / "ferretdb"
    if (root / "complete").is_file() and binary.is_file():
        return binary
    require_program("go", "(1.22 or later) to build FerretDB from the Go module proxy")
    source = root / "src"
    source.mkdir(parents=True, exist_ok=True)
    (source / "go.mod").write_text(GO_MOD)
    (source / "tools.go").write_text(TOOLS_GO)
    log_path = build_log_path("ferretdb-go")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w") as out:
        _go(["mod", "tidy"], source, out)
        _go(["mod", "vendor"], source, out)
        version_txt = source / "vendor" / MODULE / "build" / "version" / "version.txt"
        version_txt.write_text(VERSION + "\n")
        _fix_id_lookup(source / "vendor" / MODULE)
        _go(["build", "-mod=vendor", "-trimpath", "-o", str(binary), f"{MODULE}/cmd/ferretdb"],
            source, out)  # fmt: skip
    (root / "complete").write_text("ok\n")
    return binary


@register
class FerretdbImage(Recipe):
    """FerretDB {VERSION} on the Debian base, run as the `ferretdb` user."""

    name = "ferretdb"
    depends = ("debian",)

    def dockerfile(self) -> str:
        return f"""\
FROM contio/debian:bookworm
RUN groupadd --system --gid {UID} ferretdb \\
 && useradd --system --uid {UID} --gid ferretdb --home-dir {DATA_DIR} --no-create-home \\
    --shell /usr/sbin/nologin ferretdb \\
 && mkdir -p {DATA_DIR} && chown ferretdb:ferretdb {DATA_DIR}
COPY ferretdb /usr/local/bin/ferretdb
USER ferretdb
WORKDIR {DATA_DIR}
VOLUME {DATA_DIR}
EXPOSE 27017
ENTRYPOINT ["/usr/local/bin/ferretdb", "--handler=sqlite", \
"--listen-addr=0.0.0.0:27017", "--state-dir={DATA_DIR}", "--telemetry=disable", \
"--log-level=warn"]
CMD ["--sqlite-url=file:{DATA_DIR}/"]
"""

    def inputs(self) -> dict[str, Input]:
        return {"ferretdb": build_ferretdb()}
