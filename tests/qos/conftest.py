"""Fixtures of the block I/O control tests: root, a fresh loop device, cgroup clean-up checks."""

from __future__ import annotations

import os
import shutil
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from contio.backends import loop_device
from contio.backends.undo_journal import UndoJournal
from contio.qos import BlockDevice, hierarchy, resolve
from contio.qos.process_group import PARENT


def need_root_and_v1() -> Path:
    """Skip unless root on a host with the cgroup v1 blkio controller (this machine)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (loop devices, cgroups)")
    if shutil.which("losetup") is None:
        pytest.skip("missing losetup (run scripts/setup-system.sh)")
    root = hierarchy.blkio_v1_root()
    if root is None:
        pytest.skip("needs the cgroup v1 blkio controller; the v2 files are unit-tested")
    return root


@pytest.fixture
def v1_root() -> Path:
    """The v1 blkio mount point; skips unless root on a cgroup v1 host."""
    return need_root_and_v1()


@pytest.fixture
def loop_disk(tmp_path: Path) -> Iterator[tuple[str, BlockDevice]]:
    """A new 32 GiB loop device over a sparse file (holes read as zeros, costing no disk), detached after the test."""
    need_root_and_v1()
    journal = UndoJournal(tmp_path / "journal.json")
    try:
        node = loop_device.attach(tmp_path / "disk.img", 32 << 30, journal)
        yield node, resolve(node)
    finally:
        journal.undo_all()


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
