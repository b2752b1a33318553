"""Paper 004's middleware on the shared 3-node Gluster cluster, through the real CLI:
two tenants' volumes share every node's brick disk, `contio qos up` starts a coordinator
and an agent per node, and O_DIRECT writers of both tenants are held to their shares on
every node — by Algorithm 1 (static), then lent and taken back (work-conserving). A
killed agent is marked stale, and `down` (which removes what the killed one left) leaves
no cgroup behind and gives every brick disk its scheduler back (the agents weigh tenants
with BFQ).

(Here rather than in tests/middleware/: it needs this directory's shared cluster.)"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml

import contio
from contio.backends import registry
from contio.errors import MiddlewareError
from contio.gluster.local_cluster import LocalCluster
from contio.gluster.node_access import gluster_xml
from contio.middleware.bricks import brick_processes
from contio.middleware.daemon import PidFile
from contio.middleware.deployment import Deployment
from contio.middleware.disk_names import node_of
from contio.qos import device as devices
from contio.qos import hierarchy, resolve
from contio.qos.process_group import PARENT
from contio.report.middleware_sections import read_samples
from contio.results.folder import load

MB = 1_000_000
MIB = 1 << 20
# Gluster 10 has no volume option for O_DIRECT on every brick open; these pass a
# client's O_DIRECT through to the brick (docs/middleware.md).
DIRECT = {"performance.strict-o-direct": "on", "network.remote-dio": "disable"}
WRITERS = 12
"""Per tenant, one file each: enough that the volume's hash puts some on every brick."""


def _vnodes() -> list[str]:
    root = hierarchy.blkio_v1_root()
    parent = root / PARENT if root is not None else None
    return sorted(p.name for p in parent.glob("qos-*")) if parent and parent.exists() else []


def _writers(directory: Path, count: int) -> list[subprocess.Popen]:
    """Direct-I/O writers, one file each (files hash to the volume's three bricks)."""
    procs = []
    for i in range(count):
        argv = ["dd", "if=/dev/zero", f"of={directory / f'w{i}'}", "bs=256k", "count=100000"]
        procs.append(subprocess.Popen([*argv, "oflag=direct", "status=none"]))
    return procs


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.kill()
        proc.wait()


def _until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.5)  # one agent interval is 1 s


@pytest.fixture
def tenant_volumes(gluster_cluster) -> Iterator[dict[str, Path]]:
    with ExitStack() as stack:
        mounts = {}
        for tenant in ("ta", "tb"):
            backend = registry.create("gluster", {
                "volume_type": "distributed", "bricks": 3, "volume_name": tenant,
                "volume_options": DIRECT, "cluster": gluster_cluster,
            })  # fmt: skip
            stack.enter_context(backend)
            mounts[tenant] = backend.data_root()
        yield mounts


def test_tenants_are_held_to_their_shares_on_every_node_and_nothing_is_left(
    gluster_cluster, tenant_volumes, run_contio, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # as a user would: from anywhere
    disks = [resolve(n.disks[0]) for n in LocalCluster.open(gluster_cluster).state.nodes]
    schedulers = {d.name: devices.scheduler(d) for d in disks}
    up = run_contio("qos", "up", "--cluster", gluster_cluster, "--capacity", "20MB/s",
                    "--policy", "static")  # fmt: skip
    assert up.returncode == 0, up.stderr
    writers: list[subprocess.Popen] = []
    try:
        done = run_contio("qos", "set", "ta", "--priority", "75", "--cluster", gluster_cluster)
        assert done.returncode == 0, done.stderr
        client = Deployment.load(gluster_cluster).client
        client.set_tenant("tb", 25)  # the API the CLI uses; one CLI call is enough
        writers = _writers(tenant_volumes["ta"], WRITERS) + _writers(tenant_volumes["tb"], WRITERS)

        # Every brick disk has its agent (node1, node1.d2, …); the tenants' bricks are on
        # the first disks (`bricks: 3`), where their shares are judged.
        assert len(client.status()["nodes"]) == 6

        def held(shares: dict[str, float], slack: float = 1.15) -> bool:
            nodes = {n: v for n, v in client.status()["nodes"].items() if node_of(n) == n}
            return all(
                row["target_bps"] == pytest.approx(shares[tenant])
                and 0.5 * shares[tenant] <= row["measured_bps"] <= slack * shares[tenant]
                for node in nodes.values()
                for tenant, row in node["tenants"].items()
            )

        # Algorithm 1: 75 : 25 of 20 MB/s on each node, and the writers are held there.
        _until(lambda: held({"ta": 15 * MB, "tb": 5 * MB}), 30, "static shares 15/5 MB/s held")
        # The priorities also order each brick disk's queue: BFQ, weights 10 × priority.
        parent = hierarchy.blkio_v1_root() / PARENT  # type: ignore[operator]
        for index, disk in enumerate(disks, 1):
            assert devices.scheduler(disk) == "bfq"
            for tenant, weight in (("ta", 750), ("tb", 250)):
                path = parent / f"qos-node{index}-{tenant}" / "blkio.bfq.weight_device"
                assert f"{disk.number} {weight}" in path.read_text().splitlines()

        # Work-conserving: tb stops, its share is lent to ta; it is back when tb writes.
        client.set_policy("work-conserving")
        tb_writers, writers = writers[WRITERS:], writers[:WRITERS]
        _stop(tb_writers)

        def lent() -> bool:
            nodes = [v for n, v in client.status()["nodes"].items() if node_of(n) == n]
            return all(n["tenants"]["ta"]["measured_bps"] > 17 * MB for n in nodes)

        _until(lent, 20, "ta uses more than its 15 MB/s while tb is idle")
        writers += _writers(tenant_volumes["tb"], WRITERS)
        _until(lambda: held({"ta": 15 * MB, "tb": 5 * MB}), 20, "tb's share taken back")

        # An agent killed with SIGKILL: its node goes stale; its VNodes outlive it.
        deployment = Deployment.load(gluster_cluster)
        os.killpg(deployment.agents["node1"].pid, signal.SIGKILL)
        _until(lambda: client.status()["nodes"]["node1"]["stale"], 10, "node1 stale")
        assert any(name.startswith("qos-node1-") for name in _vnodes())
    finally:
        _stop(writers)
        down = run_contio("qos", "down", "--cluster", gluster_cluster)
        assert down.returncode == 0, down.stderr
    # `down` removed the killed agent's VNodes too, and said so.
    assert "the agent of node1 had died; removed what it left: VNode qos-node1-" in down.stdout
    assert _vnodes() == []
    cleanup = run_contio("cleanup", "--dry-run")
    assert cleanup.returncode == 0 and "nothing to clean up" in cleanup.stdout, cleanup.stdout
    assert {d.name: devices.scheduler(d) for d in disks} == schedulers  # the killed one's too


SSHD = Path("/usr/sbin/sshd")  # sshd re-executes itself: it must be started by full path


@pytest.fixture
def node_sshds(gluster_cluster, tmp_path, state_dir) -> Iterator[dict]:
    """An sshd in every node's network namespace, and the inventory that reaches them.

    Each sshd sees the host's files and cgroups (only its network is the node's), as a
    storage host's own sshd sees its own: the nodes are real hosts to `contio qos up
    --inventory`. The nodes run this checkout's contio, with this session's state dir."""
    if not SSHD.exists():
        pytest.skip("openssh-server is not installed (scripts/setup-system.sh installs it)")
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / name)],
                       check=True)  # fmt: skip
    (tmp_path / "authorized_keys").write_text((tmp_path / "client_key.pub").read_text())
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege-separation directory
    nodes = LocalCluster.open(gluster_cluster).state.nodes
    with ExitStack() as stack:
        for node in nodes:
            config = tmp_path / f"sshd-{node.index}.conf"
            config.write_text(
                f"ListenAddress {node.address}\nHostKey {tmp_path / 'host_key'}\n"
                f"AuthorizedKeysFile {tmp_path / 'authorized_keys'}\n"
                "PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nPidFile none\n"
            )
            log = stack.enter_context(open(tmp_path / f"sshd-{node.index}.log", "wb"))
            daemon = stack.enter_context(subprocess.Popen(
                ["nsenter", f"--net=/run/netns/{node.netns}", "--", str(SSHD), "-D", "-e",
                 "-f", str(config)], stderr=log,
            ))  # fmt: skip
            stack.callback(daemon.terminate)  # runs before the Popen's exit waits for it
        for node in nodes:
            _until(lambda a=node.address: _accepts(a, 22), 10, f"sshd on {node.address}")
        yield {
            "nodes": [
                {"host": f"root@{n.address}", "address": n.address, "bricks": n.disks}
                for n in nodes
            ],
            "ssh_options": [
                "-i", str(tmp_path / "client_key"), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                "-o", "ConnectTimeout=5",
            ],
            # This checkout's package, also when the interpreter has another installed.
            "contio_command": ["env", f"CONTIO_STATE_DIR={state_dir}",
                               f"PYTHONPATH={Path(contio.__file__).parents[1]}",
                               sys.executable, "-m", "contio"],
        }  # fmt: skip


def _accepts(address: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex((address, port)) == 0


def _same_netns(pid: int, netns: str) -> bool:
    return os.stat(f"/proc/{pid}/ns/net").st_ino == os.stat(f"/run/netns/{netns}").st_ino


def test_qos_up_starts_each_hosts_agent_over_ssh_and_down_stops_it(
    gluster_cluster, tenant_volumes, node_sshds, run_contio, tmp_path, monkeypatch, state_dir
):
    monkeypatch.chdir(tmp_path)  # relative inventory paths, as a user types them
    local = LocalCluster.open(gluster_cluster).state
    nodes = local.nodes
    pid_files = [state_dir / "qos-agents" / f"node{n.index}.pid" for n in nodes]

    # A host that does not answer (no sshd on the bridge's host side): exit 2 naming it,
    # before anything starts anywhere.
    unreachable = json.loads(json.dumps(node_sshds))
    unreachable["nodes"][2]["host"] = f"root@{local.host_address}"
    Path("unreachable.yaml").write_text(yaml.safe_dump(unreachable))
    refused = run_contio("qos", "up", "--inventory", "unreachable.yaml", "--cluster", "ssh-x",
                         "--capacity", "20MB/s")  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    assert "node 3 (root@" in refused.stderr and "node 1" not in refused.stderr
    assert not any(p.exists() for p in pid_files) and _vnodes() == []
    assert "not up" in run_contio("qos", "status", "--cluster", "ssh-x").stderr

    Path("inventory.yaml").write_text(yaml.safe_dump(node_sshds))
    up = run_contio("qos", "up", "--inventory", "inventory.yaml", "--cluster", "ssh",
                    "--capacity", "20MB/s", "--policy", "static")  # fmt: skip
    assert up.returncode == 0, up.stderr
    deployment = Deployment.load("ssh")
    try:
        # Each host's agent was started by that host's sshd: it runs in the node's
        # network namespace, detached, named in its PID file.
        for node in nodes:
            started = deployment.agents[f"node{node.index}"]
            assert started.alive() and _same_netns(started.pid, node.netns)
            assert started.pid != os.getpid()
            assert PidFile(pid_files[node.index - 1]).running() == started
        client = deployment.client
        assert len(client.status()["nodes"]) == 6  # every brick disk reports
        client.set_tenant("ta", 75)
        client.set_tenant("tb", 25)

        def synced() -> bool:  # every node's agent moved both tenants' bricks into VNodes
            return all(f"qos-node{n.index}-{t}" in _vnodes() for n in nodes for t in ("ta", "tb"))

        _until(synced, 15, "the remote agents made every node's VNodes")
        parent = hierarchy.blkio_v1_root() / PARENT  # type: ignore[operator]
        for node in nodes:
            bricks = {b.pid for b in brick_processes(node.address) if b.volume == "ta"}
            procs = (parent / f"qos-node{node.index}-ta" / "cgroup.procs").read_text().split()
            assert bricks and bricks <= {int(p) for p in procs}
    finally:
        down = run_contio("qos", "down", "--cluster", "ssh")
    assert down.returncode == 0, down.stderr
    assert not any(s.alive() for s in deployment.agents.values())
    assert not deployment.coordinator.alive()
    assert _vnodes() == [] and not any(p.exists() for p in pid_files)


EXPERIMENT = Path(__file__).resolve().parents[2] / "experiments" / "io-middleware.yaml"


def _volumes(cluster: str) -> list[str]:
    root = gluster_xml(LocalCluster.open(cluster).controller(), ["volume", "list"])
    return [v.text or "" for v in root.iter("volume")]


@dataclass
class _Held:
    """What one tenant moved on one node while it read, and over how long."""

    moved: float = 0.0
    seconds: float = 0.0
    windows: int = 0
    reports: int = 0

    def budget(self, limit_bps: float, burst: int) -> float:
        """The most a throttle of `limit_bps` lets through: limit × time, plus a burst
        per window. The kernel's throttle is a token bucket whose first requests pass at
        once: three O_DIRECT readers of 1 MiB on a 5 MB/s loop device moved 3.15 MB in
        their first 50 ms, then 5.01 MB/s. A report that begins just before the readers
        leaves that burst in the second report (9 MB/s over 0.6 s), which over a 3.6 s
        phase is 12 % of the limit."""
        return limit_bps * self.seconds + burst * self.windows


def _held(folder: Path, rows: pd.DataFrame, tenant: str) -> dict[str, _Held]:
    """Per node, `tenant`'s bytes in the reports where it read (> 0.5 MB/s) after the
    first of each repetition (the throttle's burst as a tenant starts), each report's
    rate weighted by the time since the node's previous report."""
    held: dict[str, _Held] = {}
    for raw in rows["raw_json"].unique():
        samples = read_samples(folder, str(Path(raw).parent))
        for node, reports in samples.groupby("node"):
            times = sorted(reports["t"].unique())
            lasted = {b: b - a for a, b in itertools.pairwise(times)}
            mine = reports[(reports["tenant"] == tenant) & (reports["measured_bps"] > 0.5 * MB)]
            mine = mine.sort_values("t").iloc[1:]
            counted = [
                (rate, lasted[t])
                for t, rate in zip(mine["t"], mine["measured_bps"], strict=True)
                if t in lasted
            ]
            if counted:
                h = held.setdefault(str(node), _Held())
                h.moved += sum(rate * seconds for rate, seconds in counted)
                h.seconds += sum(seconds for _, seconds in counted)
                h.windows += 1
                h.reports += len(counted)
    return held


def test_the_io_middleware_spec_runs_its_tenants_under_their_shares(
    gluster_cluster, engine, run_contio, tmp_path
):
    """experiments/io-middleware.yaml's tiny profile on the shared cluster: every cell
    runs, each tenant's reads are held to its per-node limit on every node (samples of
    the agents' own counters), the rows record the shares, the report draws them, and
    the run leaves no tenant volume, VNode or middleware process behind."""
    spec = yaml.safe_load(EXPERIMENT.read_text())
    spec["backends"]["gluster"]["cluster"] = gluster_cluster
    path = tmp_path / "io-middleware.yaml"
    path.write_text(yaml.safe_dump(spec))
    before = set(_volumes(gluster_cluster))
    done = run_contio(
        "run", str(path), "--profile", "tiny", "--results-dir", str(tmp_path / "results")
    )
    assert done.returncode == 0, done.stderr
    [folder] = (tmp_path / "results").iterdir()
    runs = load(folder)
    assert len(runs.groupby("cell_index")) == 4, runs[["cell_index", "mix", "io_controls"]]
    controls = [json.loads(c) if c else {} for c in runs["io_control"]]
    runs = runs.assign(tenant=[c.get("tenant") for c in controls])
    limited = [c for c in controls if c.get("tenant") in ("app", "background")]
    assert limited and all(
        c["mechanism"].startswith("I/O middleware") and c["limit_bps"] == 5 * MB
        and set(c["in_force_bps"].values()) == {5 * MB} for c in limited
    ), limited  # fmt: skip

    # Held on every node, by the agents' own counters: the bytes of the reports while the
    # tenant read there, within 5 % of the limit over their time plus the throttle's
    # burst, a request of each reader (an agent woken by a returning tenant reports after
    # a fraction of an interval, single reports reach 15 MB/s: the first is left out,
    # the others are weighted by their length).
    readers, request = 3, MIB  # n-to-n's three jobs; paraview's two background readers
    for tenant in ("app", "background"):
        held = _held(folder, runs[runs["tenant"] == tenant], tenant)
        assert sum(h.reports for h in held.values()) >= 3, f"{tenant} never read there"
        over = {n: h for n, h in held.items()
                if h.moved > h.budget(1.05 * 5 * MB, readers * request)}  # fmt: skip
        assert not over, over
    unthrottled = runs[(runs["io_controls"] == "none")]["read_mib_per_sec"].sum()
    throttled = runs[runs["tenant"] == "app"].groupby("repetition")["read_mib_per_sec"].sum()
    assert (throttled * MIB <= 3 * 5 * MB * 1.2).all(), throttled
    assert unthrottled / 2 > 2 * throttled.mean(), (unthrottled, throttled)

    report = run_contio("report", str(folder))
    assert report.returncode == 0, report.stderr
    html = (folder / "report.html").read_text()
    assert 'id="middleware"' in html and "tenant-timeline" in html and "share-bars" in html

    assert set(_volumes(gluster_cluster)) == before, "tenant volumes left behind"
    assert _vnodes() == []
    with pytest.raises(MiddlewareError):
        Deployment.load(gluster_cluster)
