"""`contio/engine`: the static `contio-engine` binary on Debian with Debian's fio.

The engine drives the real fio for fio jobs (`contio-engine fio`), so the image holds
fio and the libraries it needs; the engine itself is still one static binary. The fio
layer comes before the engine's, so a rebuild after an engine change reuses it.

Which static binary, first that applies:
1. `CONTIO_SOURCE` names a checkout: the engine is built from it (musl; without the
   musl target, glibc with crt-static).
2. The installed engine (`find_engine`) is statically linked: it is used as it is. The
   wheel ships it so (musl, `[tool.maturin]` in pyproject.toml), so one binary serves the
   host and the image, and an installed contio never needs its source tree.
3. A checkout this package runs from (or the working directory): built as in 1.
4. None: `RecipeInputsUnavailable`; `contio.images.build` then reuses a `contio/engine`
   image built before, and fails with this message only when there is none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from contio.engine.invocation import ENGINE_NAME, find_engine
from contio.errors import EngineNotFoundError, ImageBuildError, RecipeInputsUnavailable
from contio.images.recipe import Input, Recipe, build_log_path, cache_root, require_program
from contio.images.registry import register

MUSL = "x86_64-unknown-linux-musl"
GNU = "x86_64-unknown-linux-gnu"

# /data belongs to the engine's user: a Docker volume mounted there starts as a copy of
# it (Docker fills an empty volume from the image), so the engine can write its data.
DATA_DIR = "/data"
DOCKERFILE = f"""\
FROM contio/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends fio \\
 && rm -rf /var/lib/apt/lists/*
COPY {ENGINE_NAME} /{ENGINE_NAME}
COPY --chown=65534:65534 data/ {DATA_DIR}/
USER 65534:65534
ENTRYPOINT ["/{ENGINE_NAME}"]
"""


def source_tree() -> Path | None:
    """The contio checkout this package runs from (CONTIO_SOURCE overrides), if any."""
    override = os.environ.get("CONTIO_SOURCE")
    candidates = [Path(override)] if override else []
    candidates += [Path(__file__).resolve().parents[3], Path.cwd()]
    for root in candidates:
        if (root / "crates" / "engine" / "Cargo.toml").is_file():
            return root
    return None


def is_static(binary: Path) -> bool:
    """Whether an ELF binary has no program interpreter (so it runs on any image's libc)."""
    if shutil.which("readelf") is None:
        # Without binutils, look for the program interpreter's path in the first page.
        return b"/lib64/ld-linux" not in binary.read_bytes()[:4096]
    result = subprocess.run(
        ["readelf", "--program-headers", str(binary)], capture_output=True, text=True, check=False
    )
    return result.returncode == 0 and "INTERP" not in result.stdout


def _cargo(root: Path, target: str, rustflags: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(cache_root() / "target"))
    if rustflags:
        env["RUSTFLAGS"] = rustflags
    argv = ["cargo", "build", "--release", "--target", target, "-p", "contio-engine"]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)


def build_static_engine(root: Path) -> Path:
    """Build the static engine from `root` and return its path."""
    require_program("cargo", "to build the static engine for contio/engine")
    target_dir = Path(os.environ.get("CARGO_TARGET_DIR", cache_root() / "target"))
    result = _cargo(root, MUSL, None)
    target = MUSL
    if result.returncode != 0:
        # No musl target installed: glibc can link statically too.
        result = _cargo(root, GNU, "-C target-feature=+crt-static")
        target = GNU
    log_path = build_log_path("engine-cargo")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        raise ImageBuildError(f"cargo could not build the static engine; see {log_path}")
    return target_dir / target / "release" / ENGINE_NAME


def static_engine(source: Path | None, installed: Path | None) -> Path:
    """The static engine to put in the image (see the module doc; `source` is the
    checkout found, `installed` the engine `find_engine` found, either may be None)."""
    if source is not None and os.environ.get("CONTIO_SOURCE"):
        return build_static_engine(source)
    if installed is not None and is_static(installed):
        return installed
    if source is not None:
        return build_static_engine(source)
    what = f"the installed {installed} is dynamically linked" if installed else "none is installed"
    raise RecipeInputsUnavailable(
        f"contio/engine needs a statically linked {ENGINE_NAME}, and {what} (it cannot run "
        "in the image whatever its libc); install a contio wheel built with the musl target "
        "(`rustup target add x86_64-unknown-linux-musl`, then `pip install` again), or point "
        "CONTIO_SOURCE at a contio checkout to build one"
    )


def _installed_engine() -> Path | None:
    try:
        return find_engine()
    except EngineNotFoundError:
        return None


@register
class EngineImage(Recipe):
    """The engine and fio on Debian, run as nobody."""

    name = "engine"
    depends = ("debian",)

    def dockerfile(self) -> str:
        return DOCKERFILE

    def inputs(self) -> dict[str, Input]:
        binary = static_engine(source_tree(), _installed_engine())
        return {ENGINE_NAME: binary, "data/.keep": b""}
