"""Finding and invoking the `contio-engine` binary.

Python talks to the engine through arguments in and versioned JSON out
(`docs/engine-interface.md`); it never parses the human-readable text.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from contio.errors import EngineNotFoundError

ENGINE_NAME = "contio-engine"


def _candidates() -> list[Path]:
    """Places the engine may be, most specific first."""
    places: list[Path] = []
    override = os.environ.get("CONTIO_ENGINE")
    if override:
        places.append(Path(override))
    # maturin installs the binary into the scripts dir of the environment.
    places.append(Path(sysconfig.get_path("scripts")) / ENGINE_NAME)
    places.append(Path(sys.executable).parent / ENGINE_NAME)
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        places.append(Path(sysconfig.get_path("scripts", scheme=user_scheme)) / ENGINE_NAME)
    on_path = shutil.which(ENGINE_NAME)
    if on_path:
        places.append(Path(on_path))
    return places


def find_engine() -> Path:
    """The path of the `contio-engine` binary; `CONTIO_ENGINE` overrides the search."""
    searched = _candidates()
    for path in searched:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise EngineNotFoundError([str(p) for p in searched])
