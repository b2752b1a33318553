"""Fixtures of the block I/O control tests: cgroup clean-up checks (root, v1 and a fresh
loop device are tests/conftest.py's, shared with the middleware tests)."""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator

import pytest

from contio.qos import hierarchy
from contio.qos.process_group import PARENT


@pytest.fixture
def group_name(request: pytest.FixtureRequest) -> Iterator[str]:
    """A cgroup name unique to this test and process; the test must leave no such cgroup."""
    name = f"test-{os.getpid()}-{zlib.crc32(request.node.nodeid.encode()):08x}"
    yield name
    root = hierarchy.blkio_v1_root()
    if root is not None:
        leftovers = list((root / PARENT).glob(f"{name}*")) if (root / PARENT).exists() else []
        for path in leftovers:
            path.rmdir()
        assert not leftovers, f"cgroups left behind: {leftovers}"
