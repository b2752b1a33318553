"""Fixtures shared by the Python tests."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from contio.engine.invocation import find_engine
from contio.errors import EngineNotFoundError
from contio.host import loop_device
from contio.host.owner_lock import OwnerLock, owner_alive
from contio.host.owner_record import why_not_owned
from contio.host.undo_journal import UndoJournal
from contio.qos import BlockDevice, hierarchy, resolve

pytest_plugins = ["strict_skips"]

TEST_STATE_PARENT = Path(tempfile.gettempdir()) / f"contio-tests-{os.getuid()}"
"""Each pytest session keeps contio's state (backends, clusters) in its own directory here,
never in /var/lib/contio; a later session removes what a killed one left."""

_session_lock: OwnerLock | None = None


def pytest_configure(config: pytest.Config) -> None:
    """Point CONTIO_STATE_DIR at this session's directory (subprocesses inherit it), after
    removing the storage of earlier sessions that were killed before their teardown."""
    global _session_lock
    if "CONTIO_STATE_DIR" in os.environ:  # the caller chose one
        return
    TEST_STATE_PARENT.mkdir(mode=0o700, exist_ok=True)
    # A name in the shared temp directory: anyone could have planted it as a link.
    parent = os.lstat(TEST_STATE_PARENT)
    if stat.S_ISLNK(parent.st_mode) or parent.st_uid != os.geteuid():
        raise pytest.UsageError(f"{TEST_STATE_PARENT} is a link or not this user's: remove it")
    for earlier in sorted(TEST_STATE_PARENT.glob("session-*")):
        if not owner_alive(earlier) and why_not_owned(earlier, ("test-session",)) is None:
            _remove_killed_session(earlier)
    session = Path(tempfile.mkdtemp(prefix="session-", dir=TEST_STATE_PARENT))
    _session_lock = OwnerLock(session, "test-session")
    _session_lock.acquire()
    os.environ["CONTIO_STATE_DIR"] = str(session)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _session_lock is not None:
        session = _session_lock.path.parent
        _session_lock.release()
        # A file left (a journal) is for the next session to act on; empty folders are not.
        if not any(path.is_file() for path in session.rglob("*")):
            shutil.rmtree(session, ignore_errors=True)


def _remove_killed_session(state_dir: Path) -> None:
    cleanup = subprocess.run(
        [sys.executable, "-m", "contio", "cleanup", "--clusters"],
        env={**os.environ, "CONTIO_STATE_DIR": str(state_dir)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    still_running = any(owner_alive(d) for d in state_dir.glob("backends/*/"))
    if cleanup.returncode == 0 and not still_running:
        shutil.rmtree(state_dir, ignore_errors=True)
    elif cleanup.returncode != 0:
        warnings.warn(
            f"could not remove a killed test session's storage: {cleanup.stderr}", stacklevel=2
        )


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


def _attached_loop(tmp_path: Path, name: str) -> Iterator[tuple[str, BlockDevice]]:
    need_root_and_v1()
    journal = UndoJournal(tmp_path / f"{name}.journal.json")
    try:
        node = loop_device.attach(tmp_path / f"{name}.img", 32 << 30, journal)
        yield node, resolve(node)
    finally:
        journal.undo_all()


@pytest.fixture
def loop_disk(tmp_path: Path) -> Iterator[tuple[str, BlockDevice]]:
    """A new 32 GiB loop device over a sparse file (holes read as zeros, costing no disk), detached after the test."""
    yield from _attached_loop(tmp_path, "disk")


@pytest.fixture
def second_loop_disk(tmp_path: Path) -> Iterator[tuple[str, BlockDevice]]:
    """Another loop device like `loop_disk`, for a node with two brick disks."""
    yield from _attached_loop(tmp_path, "disk2")
