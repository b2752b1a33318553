"""Fixtures for the real backend tests: root, the session's state directory, leak checks,
one GlusterFS cluster (3 nodes in network namespaces) shared by the gluster tests, and
the engine writing checksummed blocks through a backend and reading them back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from contio.engine.invocation import find_engine
from contio.host import mountinfo

CLUSTER_NAME = "ctest"
CLUSTER_SUBNET = "10.214.0.0/24"


def contio_cli(*args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the real `contio` command line (this interpreter's package)."""
    return subprocess.run(
        [sys.executable, "-m", "contio", *args],
        capture_output=True, text=True, check=check, timeout=600,
    )  # fmt: skip


def need_root_and(*programs: str) -> None:
    """Skip unless running as root with every program installed."""
    if os.geteuid() != 0:
        pytest.skip("needs root (loop devices, mounts, namespaces)")
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"missing programs: {', '.join(missing)} (run scripts/setup-system.sh)")


@pytest.fixture(scope="session")
def state_dir() -> Path:
    """This session's CONTIO_STATE_DIR (set in tests/conftest.py), never /var/lib/contio."""
    return Path(os.environ["CONTIO_STATE_DIR"])


@dataclass(frozen=True)
class HostSnapshot:
    """What a backend could leak: loop devices and mounts under the state directory, FUSE
    gluster mounts, contio's network namespaces (`ct…`), gluster processes.

    Scoped to contio's own resources because other work (dockerd, other tests) may
    create mounts and namespaces on this machine at the same time.
    """

    loops: frozenset[str]
    mounts: frozenset[str]
    netns: frozenset[str]
    gluster_pids: frozenset[int]
    host_processes_only: bool = False

    @classmethod
    def take(cls, host_processes_only: bool = False) -> HostSnapshot:
        """Snapshot now; `host_processes_only` ignores processes inside cluster nodes'
        namespaces (a self-heal daemon belongs to the cluster, not to one volume)."""
        state = os.environ.get("CONTIO_STATE_DIR", "/var/lib/contio")
        loops = subprocess.run(
            ["losetup", "-a"], capture_output=True, text=True, check=False
        ).stdout
        netns = subprocess.run(
            ["ip", "netns", "list"], capture_output=True, text=True, check=False
        ).stdout
        return cls(
            loops=frozenset(line.split(":")[0] for line in loops.splitlines() if state in line),
            mounts=frozenset(
                e.mount_point
                for e in mountinfo.mounts()
                if e.mount_point.startswith(state) or e.fstype == "fuse.glusterfs"
            ),
            netns=frozenset(
                line.split()[0] for line in netns.splitlines() if line.startswith("ct")
            ),
            gluster_pids=frozenset(gluster_processes(host_processes_only)),
            host_processes_only=host_processes_only,
        )

    def assert_nothing_new(self) -> None:
        """Fail listing whatever exists now that did not before."""
        now = HostSnapshot.take(self.host_processes_only)
        assert now.loops <= self.loops, f"loop devices left: {sorted(now.loops - self.loops)}"
        assert now.mounts <= self.mounts, f"mounts left: {sorted(now.mounts - self.mounts)}"
        assert now.netns <= self.netns, f"network namespaces left: {sorted(now.netns - self.netns)}"
        left = now.gluster_pids - self.gluster_pids
        assert not left, f"gluster processes left: {describe_processes(left)}"


def describe_processes(pids: frozenset[int]) -> list[str]:
    """Pid, state and command line of each process, for failure messages."""
    described = []
    for pid in sorted(pids):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            stat, cmdline = "gone", ""
        described.append(f"{pid} [{stat}] {cmdline[:200]}")
    return described


def gluster_processes(host_netns_only: bool = False) -> list[int]:
    """Pids of glusterd, glusterfsd and glusterfs processes (optionally: in this netns only)."""
    host_netns = os.readlink("/proc/self/ns/net")
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                comm = (entry / "comm").read_text().strip()
                netns = os.readlink(entry / "ns" / "net")
            except OSError:
                continue
            ours = not host_netns_only or netns == host_netns
            if comm in ("glusterd", "glusterfsd", "glusterfs") and ours:
                pids.append(int(entry.name))
    return pids


@pytest.fixture
def no_leaks(state_dir: Path) -> Iterator[HostSnapshot]:
    """Asserts after the test that it left no loop device, mount, namespace or gluster process."""
    need_root_and("losetup", "ip")
    before = HostSnapshot.take(host_processes_only=True)
    yield before
    before.assert_nothing_new()


@pytest.fixture(scope="session")
def gluster_cluster(state_dir: Path) -> Iterator[str]:
    """A 3-node cluster built and removed through the real `contio cluster` CLI.

    Removal is checked too: no namespaces, loop devices, mounts or gluster processes remain.
    """
    need_root_and("glusterd", "gluster", "mkfs.xfs", "nsenter", "unshare", "ip", "losetup")
    before = HostSnapshot.take()
    up = contio_cli(
        "cluster", "up", "--name", CLUSTER_NAME, "--nodes", "3", "--disks-per-node", "2",
        "--disk-size", "1GiB", "--subnet", CLUSTER_SUBNET,
    )  # fmt: skip
    try:
        assert up.returncode == 0, up.stderr
        yield CLUSTER_NAME
    finally:
        down = contio_cli("cluster", "down", "--name", CLUSTER_NAME)
        assert down.returncode == 0, down.stderr
        before.assert_nothing_new()


@pytest.fixture
def run_contio():
    """The real `contio` command line, as a function of its arguments."""
    return contio_cli


@pytest.fixture
def host_snapshot():
    """`HostSnapshot.take`, for tests that check leaks around a part of their work."""
    return HostSnapshot.take


@dataclass(frozen=True)
class VerifiedBlocks:
    """What the engine wrote through a backend and then read back in a second process."""

    written: int
    """Blocks the writing run wrote (each once) and read back itself."""
    checked: int
    """Blocks a separate `verify_only` run read back and checked."""


def engine_round_trip(
    directory: Path, scratch: Path, *, direct: bool, size: str = "8m", bs: str = "64k"
) -> VerifiedBlocks:
    """The engine writes `size` of checksummed blocks into `directory` (every block once,
    random order), reads each back; then a second engine process checks them all.

    Fails the test on any engine error or mismatch. `direct`: O_DIRECT, so reads come
    from the storage below, not from this host's page cache of the file.
    """
    common = [
        "[global]", f"filename={directory / 'blocks'}", f"bs={bs}", f"size={size}",
        "ioengine=psync", f"direct={int(direct)}", "verify=crc32c",
    ]  # fmt: skip
    written = _engine_fio(scratch / "write", [*common, "rw=randwrite", "end_fsync=1", "[w]"])
    checked = _engine_fio(scratch / "check", [*common, "rw=read", "verify_only=1", "[v]"])
    blocks = written["io"]["bytes_written"] // _size(bs)
    assert blocks == _size(size) // _size(bs), written["io"]
    assert written["io"]["verify"]["blocks_checked"] == blocks, written["io"]["verify"]
    assert checked["io"]["bytes_written"] == 0
    return VerifiedBlocks(blocks, checked["io"]["verify"]["blocks_checked"])


def _size(text: str) -> int:
    units = {"k": 1024, "m": 1024**2, "g": 1024**3}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def _engine_fio(stem: Path, lines: list[str]) -> dict:
    stem.parent.mkdir(parents=True, exist_ok=True)
    job, result = stem.with_suffix(".fio"), stem.with_suffix(".json")
    job.write_text("\n".join(lines) + "\n")
    done = subprocess.run(
        # contio's core: its verify report counts and names each block it checked.
        [str(find_engine()), "fio", "--contio-core", str(job), "-json", str(result)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    document = json.loads(result.read_text())
    verify = document["io"]["verify"]
    assert document["status"] == "ok" and verify["error"] is None, document["error"]
    assert verify["mismatches"] == 0, verify["first_mismatches"]
    return document


@pytest.fixture
def engine_verify():
    """`engine_round_trip`, as a fixture (conftest modules are not imported by tests)."""
    return engine_round_trip
