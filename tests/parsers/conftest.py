"""Fixtures of the PerfKitBenchmarker parsing tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def launcher(engine: Path) -> Path:
    """The `ycsb` launcher shipped beside the engine."""
    path = engine.parent / "ycsb"
    assert path.is_file(), f"no ycsb launcher beside {engine}"
    return path
