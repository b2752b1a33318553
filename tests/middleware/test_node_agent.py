"""The node agent against a real coordinator (HTTP, SQLite), real cgroups and a real loop
device. The brick processes here are `dd` readers standing in for `glusterfsd` (the agent
finds bricks through an injected function); the Gluster cluster test is
tests/middleware/test_gluster_middleware.py."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from contio.cleanup import leftovers
from contio.middleware.agent import AgentConfig, NodeAgent, run_agents
from contio.middleware.bricks import BrickProcess
from contio.middleware.coordinator import Coordinator
from contio.middleware.disk_names import disk_node
from contio.middleware.http_api import CoordinatorClient, CoordinatorServer
from contio.middleware.store import Store
from contio.middleware.vnode import cgroup_name
from contio.qos import device as devices
from contio.qos import hierarchy
from contio.qos.process_group import PARENT

MB = 1_000_000
SECRET = "agent-test"
CAPACITY = 40 * MB


class Coordinated:
    """A coordinator on a fixed port that the test can stop and start again."""

    def __init__(self, path: Path):
        self.path = path
        self.server: CoordinatorServer | None = None
        self.port = 0

    def start(self) -> None:
        self.store = Store(self.path)
        self.server = CoordinatorServer(("127.0.0.1", self.port), Coordinator(self.store), SECRET)
        self.port = self.server.server_address[1]
        self.server.serve_in_thread()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.store.close()
            self.server = None

    @property
    def client(self) -> CoordinatorClient:
        return CoordinatorClient(f"http://127.0.0.1:{self.port}", SECRET, timeout=2)


@pytest.fixture
def coordinator(tmp_path):
    served = Coordinated(tmp_path / "coordinator.sqlite")
    served.start()
    yield served
    served.stop()


def _reader(device: str) -> subprocess.Popen:
    """A process reading the disk with direct I/O, as a brick serving a reader does."""
    return subprocess.Popen(
        ["dd", f"if={device}", "of=/dev/null", "bs=1M", "iflag=direct", "status=none"]
    )


def _in_cgroup(pid: int) -> str:
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "blkio" in controllers.split(","):
            return path
    return ""


def test_agent_moves_bricks_into_vnodes_throttles_by_priority_and_cleans_up(
    loop_disk, coordinator, tmp_path, monkeypatch
):
    node, device = loop_disk
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path / "state"))
    client = coordinator.client
    client.set_policy("static")
    client.set_tenant("hi", 75)
    client.set_tenant("lo", 25)
    readers = {"hi": _reader(node), "lo": _reader(node)}
    bricks = {t: BrickProcess(p.pid, t, "10.0.0.1", "/b") for t, p in readers.items()}
    config = AgentConfig("n1", "10.0.0.1", device, CAPACITY, client.url, SECRET, interval=0.5)
    agent = NodeAgent(config, client, bricks=lambda host: list(bricks.values()))
    try:
        for _ in range(3):  # learn the tenants, make the VNodes, measure a first interval
            agent.step()
            time.sleep(0.5)  # an interval of I/O to measure
        for tenant, reader in readers.items():
            assert _in_cgroup(reader.pid).endswith(cgroup_name("n1", tenant))
        assert agent.shares == pytest.approx({"hi": 30 * MB, "lo": 10 * MB})
        agent.step()  # the interval in which the throttle came into force
        time.sleep(1.0)  # a whole interval under the throttle
        measured = agent.step().used_bps
        assert 0 < measured["lo"] <= 10 * MB * 1.1
        assert measured["hi"] > measured["lo"]
        # The disk's own counters go with the report: everything the readers moved, and a
        # disk far from saturated (40 MB/s of a loop device), so the full capacity is divided.
        # (io_ticks advance only at a jiffy with I/O in flight: sub-millisecond requests at
        # 2 % of the device's bandwidth often read 0 over an interval.)
        assert agent.disk is not None and 0 <= agent.disk.utilization < 0.95
        assert agent.disk.moved_bps == pytest.approx(sum(measured.values()), rel=0.2)
        assert client.status()["nodes"]["n1"]["effective_bps"] == pytest.approx(CAPACITY)
        status = client.status()["nodes"]["n1"]["tenants"]
        assert status["lo"]["target_bps"] == pytest.approx(10 * MB)

        # A brick restarts: new PID, adopted at the next interval.
        readers["lo"].kill()
        readers["lo"].wait()
        readers["lo"] = _reader(node)
        bricks["lo"] = BrickProcess(readers["lo"].pid, "lo", "10.0.0.1", "/b")
        time.sleep(0.5)  # an interval of I/O: hi stays active, the shares stay 30/10
        result = agent.step()
        assert result.adopted == {"lo": [readers["lo"].pid]}
        assert _in_cgroup(readers["lo"].pid).endswith(cgroup_name("n1", "lo"))

        # The coordinator goes away: the agent keeps its shares (fail-static) ...
        coordinator.stop()
        throttle = Path(agent.vnodes["lo"].group.cgroup.path, "blkio.throttle.read_bps_device")
        before = throttle.read_text()
        result = agent.step()
        assert not result.coordinator_reached and result.shares_bps == agent.shares
        assert throttle.read_text() == before and str(10 * MB) in before
        # ... and re-syncs when it is back with a change made meanwhile.
        coordinator.start()
        coordinator.client.set_tenant("lo", 75)
        time.sleep(0.5)  # an interval of I/O: both tenants active
        assert agent.step().coordinator_reached
        assert agent.shares["lo"] == pytest.approx(20 * MB)
        assert str(20 * MB) in throttle.read_text()
    finally:
        agent.close()
        for reader in readers.values():
            reader.kill()
            reader.wait()
    root = hierarchy.blkio_v1_root()
    assert root is not None
    assert not list((root / PARENT).glob("qos-n1-*")) if (root / PARENT).exists() else True
    assert not (tmp_path / "state" / "qos-agents" / "n1" / "journal.json").exists()


def test_an_iops_limit_is_written_into_the_kernels_throttle_and_priced_by_request_size(
    loop_disk, coordinator, tmp_path, monkeypatch
):
    node, device = loop_disk
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path / "state"))
    client = coordinator.client
    client.set_tenant("db", 50, limit="50iops")
    reader = subprocess.Popen(
        ["dd", f"if={node}", "of=/dev/null", "bs=4k", "iflag=direct", "status=none"]
    )  # 4 KiB requests, as a database's
    brick = BrickProcess(reader.pid, "db", "10.0.0.1", "/b")
    config = AgentConfig("n1", "10.0.0.1", device, CAPACITY, client.url, SECRET, interval=0.5)
    agent = NodeAgent(config, client, bricks=lambda host: [brick])
    try:
        for _ in range(3):  # learn the tenant, make its VNode, throttle it
            agent.step()
            time.sleep(0.5)
        throttle = Path(agent.vnodes["db"].group.cgroup.path, "blkio.throttle.read_iops_device")
        assert throttle.read_text().split()[-1] == "50"
        agent.step()
        time.sleep(1.0)  # a whole interval under the throttle
        measured = agent.step().used_bps["db"]
        assert 0 < measured <= 50 * 4096 * 1.1  # 50 I/O/s of 4 KiB, not the share's MB/s
        [row] = client.status()["nodes"]["n1"]["tenants"].values()
        assert row["io_bytes"] == pytest.approx(4096)
        assert agent.settings()["vnodes"]["db"]["iops_limit"] == 50
    finally:
        agent.close()
        reader.kill()
        reader.wait()
    assert not throttle.exists()


def test_a_node_with_two_brick_disks_runs_an_agent_per_disk_in_one_loop(
    loop_disk, second_loop_disk, coordinator, tmp_path, monkeypatch
):
    (first, device1), (second, device2) = loop_disk, second_loop_disk
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path / "state"))
    client = coordinator.client
    client.set_tenant("t", 50, limit="5MB/s")
    # One tenant, a brick on each disk: two processes, each in the VNode of its disk.
    readers = [_reader(first), _reader(second)]
    bricks = [BrickProcess(r.pid, "t", "10.0.0.1", f"/b{k}") for k, r in enumerate(readers)]
    monkeypatch.setattr(
        "contio.middleware.agent.resolve",
        lambda brick: device1 if brick == "/b0" else device2,
    )  # the bricks' paths stand for directories on the two disks
    agents = [
        NodeAgent(
            AgentConfig(disk_node("n1", k), "10.0.0.1", device, CAPACITY, client.url, SECRET,
                        interval=0.5, siblings=(other,)),
            client, bricks=lambda host: bricks,
        )
        for k, (device, other) in enumerate([(device1, device2), (device2, device1)], start=1)
    ]  # fmt: skip
    began = time.monotonic()
    seen: dict[int, str] = {}
    nodes: dict[str, Any] = {}
    limits: list[list[str]] = []

    def stop() -> bool:  # four seconds of intervals; what was in force is seen at 3.5 s
        elapsed = time.monotonic() - began
        if elapsed > 3.5 and not seen:
            seen.update({r.pid: _in_cgroup(r.pid) for r in readers})
            nodes.update(client.status()["nodes"])
            limits.extend(
                Path(a.vnodes["t"].group.cgroup.path, "blkio.throttle.read_bps_device")
                .read_text().split() for a in agents
            )  # fmt: skip
        return elapsed > 4.0

    try:
        run_agents(agents, stop)
    finally:
        for reader in readers:
            reader.kill()
            reader.wait()
    assert set(nodes) == {"n1", "n1.d2"}
    # Each disk's brick read, throttled on its own disk to the tenant's limit (one 1 MiB
    # request more or less in a half-second report is 2 MB/s: the rate is only bounded).
    for name in ("n1", "n1.d2"):
        assert 0 < nodes[name]["tenants"]["t"]["measured_bps"] < 2 * 5 * MB, nodes
    assert limits == [[device1.number, str(5 * MB)], [device2.number, str(5 * MB)]]
    assert seen[readers[0].pid].endswith(cgroup_name("n1", "t"))
    assert seen[readers[1].pid].endswith(cgroup_name("n1.d2", "t"))
    assert all(not a.uncontrolled for a in agents)  # each other brick is a sibling's
    root = hierarchy.blkio_v1_root()
    assert root is not None
    assert not list((root / PARENT).glob("qos-n1*")) if (root / PARENT).exists() else True


def test_a_brick_on_another_disk_is_left_alone_and_reported(loop_disk, coordinator, tmp_path,
                                                         monkeypatch):  # fmt: skip
    _, device = loop_disk
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path / "state"))
    coordinator.client.set_tenant("t", 10)
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        elsewhere = BrickProcess(sleeper.pid, "t", "10.0.0.1", str(tmp_path))  # not the loop disk
        config = AgentConfig("n2", "10.0.0.1", device, CAPACITY, coordinator.client.url, SECRET)
        agent = NodeAgent(config, coordinator.client, bricks=lambda host: [elsewhere])
        agent.step()
        agent.step()
        assert agent.vnodes == {} and agent.uncontrolled == {f"t:{tmp_path}"}
        assert not _in_cgroup(sleeper.pid).endswith(cgroup_name("n2", "t"))
        agent.close()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_an_idle_tenant_that_reads_again_wakes_the_agent_before_the_interval_ends(
    loop_disk, coordinator, tmp_path, monkeypatch
):
    node, device = loop_disk
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path / "state"))
    coordinator.client.set_tenant("t", 10)
    # A brick that is idle until told to read: `exec` keeps its PID (and cgroup) for dd.
    brick = subprocess.Popen(
        ["sh", "-c", 'read go; exec dd if="$0" of=/dev/null bs=1M iflag=direct status=none',
         node], stdin=subprocess.PIPE, text=True,
    )  # fmt: skip
    config = AgentConfig("n3", "10.0.0.1", device, CAPACITY, coordinator.client.url, SECRET)
    agent = NodeAgent(config, coordinator.client,
                      bricks=lambda host: [BrickProcess(brick.pid, "t", "10.0.0.1", "/b")])  # fmt: skip
    try:
        for _ in range(3):  # learn the tenant, make its VNode, measure an idle interval
            agent.step()
        assert agent.vnodes and not agent.idle_tenant_moved()
        assert brick.stdin is not None
        brick.stdin.write("go\n")
        brick.stdin.flush()
        deadline = time.monotonic() + 10
        while not agent.idle_tenant_moved():
            assert time.monotonic() < deadline, "the reading tenant was never noticed"
            time.sleep(0.05)
        assert agent.step().used_bps["t"] > 0
        assert not agent.idle_tenant_moved()  # it is no longer idle
    finally:
        agent.close()
        brick.kill()
        brick.wait()


def _weight(agent: NodeAgent, tenant: str) -> str:
    path = Path(agent.vnodes[tenant].group.cgroup.path, "blkio.bfq.weight_device")
    number = agent.config.device.number
    return next(
        (ln.split()[1] for ln in path.read_text().splitlines() if ln.startswith(number)), ""
    )


def test_the_agent_weighs_tenants_by_priority_in_bfq_and_restores_the_scheduler(
    loop_disk, coordinator, tmp_path, monkeypatch
):
    node, device = loop_disk
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path / "state"))
    before = devices.scheduler(device)
    assert before != "bfq"  # a fresh loop device runs none: the agent must select BFQ
    client = coordinator.client
    client.set_tenant("hi", 80)
    client.set_tenant("lo", 10)
    readers = {"hi": _reader(node), "lo": _reader(node)}
    bricks = {t: BrickProcess(p.pid, t, "10.0.0.1", "/b") for t, p in readers.items()}
    config = AgentConfig("n1", "10.0.0.1", device, CAPACITY, client.url, SECRET, interval=0.5)
    agent = NodeAgent(config, client, bricks=lambda host: list(bricks.values()))
    try:
        for _ in range(3):
            agent.step()
            time.sleep(0.5)
        assert devices.scheduler(device) == "bfq"
        assert devices.bfq_low_latency(device) is False
        assert (_weight(agent, "hi"), _weight(agent, "lo")) == ("800", "100")
        journal = (tmp_path / "state" / "qos-agents" / "n1" / "journal.json").read_text()
        assert '"qos-scheduler"' in journal and f'"scheduler": "{before}"' in journal
        # A priority change is a weight change, applied at the next interval; the VNodes'
        # records are applied afresh each time and the disk stays as the agent set it.
        client.set_tenant("lo", 20)
        agent.step()
        assert _weight(agent, "lo") == "200"
        assert agent.settings()["vnodes"]["lo"]["weight"] == 200
    finally:
        agent.close()
        for reader in readers.values():
            reader.kill()
            reader.wait()
    assert devices.scheduler(device) == before
    assert not (tmp_path / "state" / "qos-agents" / "n1" / "journal.json").exists()


def test_a_vnode_reapplied_keeps_the_scheduler_its_first_weight_replaced(loop_disk):
    from contio.middleware.vnode import VNode

    _, device = loop_disk
    before = devices.scheduler(device)
    vnode = VNode.create("n7", "t", device)
    try:
        vnode.throttle(10 * MB, weight=300)  # selects BFQ: the record names `before`
        vnode.throttle(20 * MB, weight=300)  # BFQ already: this record replaced nothing
        assert devices.scheduler(device) == "bfq"
        assert vnode.settings()["replaced_scheduler"] == before
    finally:
        vnode.remove()
    assert devices.scheduler(device) == before
    assert devices.bfq_low_latency(device) is None  # BFQ gone, its setting with it


KILLED_AGENT = """
import os, signal, sys
from pathlib import Path
from contio.middleware.agent import AgentConfig, NodeAgent, run_agents
from contio.middleware.bricks import BrickProcess
from contio.middleware.coordinator import Coordinator
from contio.middleware.http_api import CoordinatorServer
from contio.middleware.store import Store
from contio.qos import resolve

store, disk, pid = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
server = CoordinatorServer(("127.0.0.1", 0), Coordinator(Store(store)), "k")
server.serve_in_thread()
server.coordinator.set_tenant("t", 10)
config = AgentConfig("n9", "10.0.0.9", resolve(disk), 1e8, server.url, "k")
agent = NodeAgent(config, bricks=lambda host: [BrickProcess(pid, "t", "10.0.0.9", "/b")])
agent.step()
agent.step()
print(agent.vnodes["t"].group.cgroup.path, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_cleanup_removes_the_vnodes_of_a_killed_agent(loop_disk, tmp_path, monkeypatch):
    node, device = loop_disk
    before = devices.scheduler(device)
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path / "state"))
    reader = _reader(node)
    try:
        argv = [
            sys.executable,
            "-c",
            KILLED_AGENT,
            str(tmp_path / "c.sqlite"),
            node,
            str(reader.pid),
        ]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
        cgroup = Path(proc.stdout.strip())
        assert proc.returncode == -signal.SIGKILL and cgroup.is_dir(), proc.stderr
        assert devices.scheduler(device) == "bfq"  # the killed agent weighed its tenant
        assert _in_cgroup(reader.pid).endswith(cgroup.name)
        found = [f for f in leftovers.find() if f.kind == "qos-agent"]
        assert [f.name for f in found] == ["n9"]
        assert any(cgroup.name in r for r in found[0].resources)
        leftovers.remove(found[0])
        assert not cgroup.exists()
        assert devices.scheduler(device) == before
        assert not _in_cgroup(reader.pid).endswith(cgroup.name)
    finally:
        reader.kill()
        reader.wait()
