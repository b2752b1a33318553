"""Fixtures shared by the Python tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contio.engine import find_engine
from contio.errors import EngineNotFoundError


@pytest.fixture(scope="session")
def engine() -> Path:
    """The installed `contio-engine` (or `CONTIO_ENGINE`); tests that need it skip without it.

    `make test` installs it first, so there it is always found.
    """
    try:
        return find_engine()
    except EngineNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def engine_targets(engine: Path) -> str:
    """What `contio-engine targets` lists, to run target tests only where the target exists."""
    done = subprocess.run(
        [str(engine), "targets"], check=False, capture_output=True, text=True, timeout=60
    )
    return done.stdout
