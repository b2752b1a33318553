"""A coordinator or a node agent killed with SIGKILL, on a 3-node Gluster cluster of its
own, with real processes throughout: `contio run` of a 4-cell middleware experiment fails
only the cell whose run phase lost it, restarts the middleware for the others and writes
its report; tenants left by an earlier `contio qos set` are set aside for the run and
put back after; `contio qos down` after a killed agent removes what it left and says so.
Each ends with `contio cleanup --dry-run` finding nothing.

(The cluster is this module's own, not tests/backends' shared one: its name and subnet
differ, so it can be built beside a cluster another session uses.)"""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, suppress
from pathlib import Path

import pytest
import yaml

from contio.backends import registry
from contio.errors import MiddlewareError
from contio.gluster.local_cluster import LocalCluster
from contio.middleware.deployment import Deployment, middleware_root
from contio.middleware.store import Store
from contio.qos import device as devices
from contio.qos import hierarchy, resolve
from contio.qos.process_group import PARENT

CLUSTER, SUBNET = "ctmwlost", "10.217.0.0/24"
MB = 1_000_000
DIRECT = {"performance.strict-o-direct": "on", "network.remote-dio": "disable"}


def _contio(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "contio", *args], capture_output=True,
                          text=True, check=False, timeout=900, cwd=cwd)  # fmt: skip


def _until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.2)


def _vnodes() -> list[str]:
    root = hierarchy.blkio_v1_root()
    parent = root / PARENT if root is not None else None
    return sorted(p.name for p in parent.glob("qos-*")) if parent and parent.exists() else []


def _agent_folders() -> list[str]:
    root = Path(os.environ["CONTIO_STATE_DIR"]) / "qos-agents"
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.exists() else []


def _nothing_to_clean_up() -> None:
    listed = _contio("cleanup", "--dry-run")
    assert listed.returncode == 0 and "nothing to clean up" in listed.stdout, listed.stdout


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    programs = ("glusterd", "gluster", "mkfs.xfs", "nsenter", "unshare", "ip", "losetup")
    if os.geteuid() != 0 or any(shutil.which(p) is None for p in programs):
        pytest.skip("needs root and GlusterFS (scripts/setup-system.sh)")
    up = _contio("cluster", "up", "--name", CLUSTER, "--nodes", "3", "--disks-per-node", "1",
                 "--disk-size", "1GiB", "--subnet", SUBNET)  # fmt: skip
    try:
        assert up.returncode == 0, up.stderr
        yield CLUSTER
    finally:
        down = _contio("cluster", "down", "--name", CLUSTER)
        assert down.returncode == 0, down.stderr


def _spec(tmp_path: Path, levels: tuple[str, ...] = ("none", "vn-5", "vn-10", "vn-20")) -> Path:
    """Cells of one tenant's direct readers: unthrottled, then 5, 10, 20 MB/s per node
    under the middleware; time-based run phases long enough to be killed in."""

    def level(limit: int) -> dict:
        return {"middleware": {"policy": "static", "capacity": 50 * MB},
                "groups": [{"tenant": "app", "priority": 50, "limit": limit}]}  # fmt: skip

    spec = {
        "name": "lost-middleware",
        "runtime": {"type": "process"},
        "backends": {"gluster": {"type": "gluster", "volume_type": "distributed", "bricks": 3,
                                 "volume_per_tenant": True, "cluster": CLUSTER,
                                 "volume_options": DIRECT}},
        "io_controls": {"vn-5": level(5 * MB), "vn-10": level(10 * MB), "vn-20": level(20 * MB)},
        "mixes": {"readers": [{"workload": {"kind": "fio", "name": "readers", "job": {
            "rw": "read", "direct": 1, "bs": "1m", "size": "16m", "numjobs": 2,
            "time_based": 1, "runtime": 10}}}]},
        "factors": {"backend": ["gluster"], "mix": ["readers"], "containers": [1],
                    "io_controls": list(levels)},
        "stop": {"rule": "workload", "repetitions": 1},
        "drop_caches": False,
    }  # fmt: skip
    path = tmp_path / "lost.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def _samples_dirs(results: Path) -> list[Path]:
    """The cells' raw directories where a middleware run phase has reported."""
    return sorted({
        p.parents[1] for p in results.glob("*/raw/*/*/run-middleware.jsonl")
        if p.stat().st_size > 0
    })  # fmt: skip


def test_a_killed_coordinator_and_agent_fail_only_their_cells(cluster, tmp_path):
    # A tenant from an earlier `contio qos set`, kept in the coordinator's file.
    assert _contio("qos", "up", "--cluster", cluster, "--capacity", "50MB/s").returncode == 0
    earlier = _contio("qos", "set", "earlier", "--priority", "10", "--limit", "7MB/s",
                      "--cluster", cluster)  # fmt: skip
    assert earlier.returncode == 0, earlier.stderr
    assert _contio("qos", "down", "--cluster", cluster).returncode == 0
    results = tmp_path / "results"
    log = tmp_path / "run.log"  # a file, not a pipe nobody reads while the run goes on
    with open(log, "w") as out:
        run = subprocess.Popen(
            [sys.executable, "-m", "contio", "run", str(_spec(tmp_path)), "--results-dir",
             str(results)], stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path,
        )  # fmt: skip
    seen_tenants: set[str] = set()
    killed: dict[str, Path] = {}
    try:

        def watch() -> bool:
            """Note the coordinator's tenants; kill the coordinator in the first
            middleware run phase, node2's agent in the next."""
            with suppress(MiddlewareError, OSError, ValueError, KeyError):
                seen_tenants.update(Deployment.load(cluster).client.status()["tenants"])
            assert run.poll() is None, log.read_text()
            reported = [d for d in _samples_dirs(results) if d not in killed.values()]
            if reported and "coordinator" not in killed:
                os.killpg(Deployment.load(cluster).coordinator.pid, signal.SIGKILL)
                killed["coordinator"] = reported[0]
            elif reported and "agent" not in killed:
                os.killpg(Deployment.load(cluster).agents["node2"].pid, signal.SIGKILL)
                killed["agent"] = reported[0]
            return len(killed) == 2

        _until(watch, 600, "two middleware run phases")
        run.wait(timeout=900)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    err = log.read_text()
    assert run.returncode == 1, err
    [folder] = results.iterdir()
    with open(folder / "summary.csv") as summary:
        cells = {row["io_controls"]: row for row in csv.DictReader(summary)}
    failed = {level: row["reason"] for level, row in cells.items() if row["status"] == "failed"}
    done = {level for level, row in cells.items() if row["status"] == "done"}
    assert len(failed) == 2 and len(done) == 2 and "none" in done, cells
    assert killed["coordinator"] != killed["agent"]  # two cells' run phases
    assert any("coordinator" in r and "died" in r for r in failed.values()), failed
    assert any("agent of node2" in r and "died" in r for r in failed.values()), failed
    assert all("starts it again for its next cells" in r for r in failed.values()), failed
    assert (folder / "report.html").is_file()

    # The earlier tenant was never the run's, and is back after it.
    assert "earlier" not in seen_tenants and seen_tenants, seen_tenants
    assert "set aside for the run" in err and "tenants earlier put back" in err, err
    store = Store(middleware_root(cluster) / "coordinator.sqlite")
    try:
        tenants = store.tenants()
    finally:
        store.close()
    assert set(tenants) == {"earlier"} and tenants["earlier"].limit == 7 * MB
    with pytest.raises(MiddlewareError):
        Deployment.load(cluster)  # the run took down what it brought up
    assert _vnodes() == [] and _agent_folders() == []
    _nothing_to_clean_up()


def test_qos_down_after_a_killed_agent_removes_what_it_left_and_says_so(cluster):
    disks = [resolve(n.disks[0]) for n in LocalCluster.open(cluster).state.nodes]
    schedulers = {d.name: devices.scheduler(d) for d in disks}
    with ExitStack() as stack:
        backend = registry.create("gluster", {
            "volume_type": "distributed", "bricks": 3, "volume_name": "ta",
            "volume_options": DIRECT, "cluster": cluster,
        })  # fmt: skip
        stack.enter_context(backend)
        up = _contio("qos", "up", "--cluster", cluster, "--capacity", "50MB/s")
        assert up.returncode == 0, up.stderr
        try:
            done = _contio("qos", "set", "ta", "--priority", "50", "--cluster", cluster)
            assert done.returncode == 0, done.stderr
            _until(lambda: "qos-node1-ta" in _vnodes(), 30, "node1's agent made ta's VNode")
            os.killpg(Deployment.load(cluster).agents["node1"].pid, signal.SIGKILL)
            _until(lambda: not Deployment.load(cluster).agents["node1"].alive(), 10, "killed")
        finally:
            down = _contio("qos", "down", "--cluster", cluster)
            store = Store(middleware_root(cluster) / "coordinator.sqlite")
            store.remove_tenant("ta")  # the configuration outlives `down`
            store.close()
    assert down.returncode == 0, down.stderr
    said = down.stdout
    assert "the agent of node1 had died; removed what it left: VNode qos-node1-ta" in said, said
    assert "the BFQ scheduler on" in said
    assert _vnodes() == [] and _agent_folders() == []
    assert {d.name: devices.scheduler(d) for d in disks} == schedulers  # the killed one's too
    _nothing_to_clean_up()


def test_a_middleware_up_before_the_run_with_a_dead_agent_fails_its_cells_saying_what_to_do(
    cluster, tmp_path
):
    up = _contio("qos", "up", "--cluster", cluster, "--capacity", "50MB/s")
    assert up.returncode == 0, up.stderr
    try:
        os.killpg(Deployment.load(cluster).agents["node3"].pid, signal.SIGKILL)
        _until(lambda: not Deployment.load(cluster).agents["node3"].alive(), 10, "killed")
        results = tmp_path / "results"
        run = _contio("run", str(_spec(tmp_path, ("none", "vn-5", "vn-10"))), "--results-dir",
                      str(results), cwd=tmp_path)  # fmt: skip
        assert run.returncode == 1, run.stderr
        [folder] = results.iterdir()
        with open(folder / "summary.csv") as summary:
            cells = {row["io_controls"]: row for row in csv.DictReader(summary)}
        assert cells["none"]["status"] == "done", cells
        for level in ("vn-5", "vn-10"):  # each says so, the run was not the middleware's
            assert cells[level]["status"] == "failed"
            reason = cells[level]["reason"]
            assert "the agent of node3" in reason and "died" in reason, reason
            assert f"`contio qos down --cluster {cluster}` (which removes them)" in reason
        assert (folder / "report.html").is_file()
        Deployment.load(cluster)  # the user's middleware is left up, as it was
    finally:
        down = _contio("qos", "down", "--cluster", cluster)
    assert down.returncode == 0, down.stderr
    assert "the agent of node3 had died" in down.stdout, down.stdout
    assert _vnodes() == [] and _agent_folders() == []
    _nothing_to_clean_up()
