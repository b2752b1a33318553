"""go-ycsb and go-tpc as peers: the binaries scripts/setup-bench.sh builds, at pinned versions."""

from __future__ import annotations

from pathlib import Path

from benchmarks.context import cache_dir
from benchmarks.errors import SetupError

GO_YCSB_VERSION = "v1.0.3"
GO_TPC_VERSION = "v1.0.7"


def _binary(name: str, version: str) -> Path:
    path = cache_dir() / name / "bin" / f"{name}-{version}"
    if not path.is_file():
        raise SetupError(f"{name} {version} not found at {path}; run scripts/setup-bench.sh")
    return path


def go_ycsb() -> Path:
    """go-ycsb built with only its basic and redis bindings; SetupError when absent."""
    return _binary("go-ycsb", GO_YCSB_VERSION)


def go_tpc() -> Path:
    """go-tpc; SetupError when absent."""
    return _binary("go-tpc", GO_TPC_VERSION)
