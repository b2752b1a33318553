"""`contio qos up` / `down` on the one-machine cluster: a coordinator and one agent per node.

The coordinator listens on the cluster's bridge address (the host side); every node's
agent runs in the node's network namespace (so it reaches the coordinator over the
bridge, as an agent on a real storage host would) and in the host's mount namespace
(cgroups and the brick disks' mounts are the host's). Both are contio processes in their
own sessions: they outlive the command, and `down` stops them (SIGTERM: an agent removes
its VNodes on the way out). What `up` started is kept in `<cluster>/qos/deployment.json`
with each process's start time, so `down` never signals a recycled PID.

`up` checks everything it can before it changes anything (policy name, capacity), then
waits for every agent's first report; an agent that does not report in time stops `up`
with what its log says, and what was started is stopped again.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from contio.backends.undo_journal import Entry, UndoJournal
from contio.errors import MiddlewareError, QosConfigError, UsageError
from contio.gluster.local_cluster import LocalCluster, cluster_root
from contio.middleware.auth import new_secret, read_secret
from contio.middleware.disk_names import disk_node, node_of
from contio.middleware.http_api import CoordinatorClient
from contio.qos.calibration import calibrate
from contio.qos.policy import POLICIES

COORDINATOR_PORT = 24080
START_TIMEOUT = 20.0
STOP_TIMEOUT = 15.0
CALIBRATION_BYTES = 64 << 20


class AgentsDidNotReport(MiddlewareError, UsageError):
    """`contio qos up`: an agent did not reach the coordinator in time (exit 2: the nodes
    or the network need fixing before the middleware can run)."""


@dataclass
class Started:
    """A process `up` started: its PID and start time (clock ticks since boot)."""

    pid: int
    start_time: int

    def alive(self) -> bool:
        return process_start_time(self.pid) == self.start_time


@dataclass
class Deployment:
    """What `contio qos up` started for one cluster."""

    cluster: str
    url: str
    policy: str
    capacity_bps: dict[str, float]
    """Per brick disk, by its name at the coordinator (`disk_node`: node1, node1.d2, …)."""
    coordinator: Started
    agents: dict[str, Started]
    """Per node: the process running its disks' agents."""

    @property
    def directory(self) -> Path:
        return middleware_root(self.cluster)

    @property
    def client(self) -> CoordinatorClient:
        return CoordinatorClient(self.url, read_secret(self.directory / "secret"))

    def save(self) -> None:
        path = self.directory / "deployment.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1))
        os.replace(tmp, path)

    @classmethod
    def load(cls, cluster: str) -> Deployment:
        path = middleware_root(cluster) / "deployment.json"
        if not path.exists():
            raise MiddlewareError(
                f"the I/O middleware is not up on cluster '{cluster}' (run `contio qos up`)"
            )
        data = json.loads(path.read_text())
        data["coordinator"] = Started(**data["coordinator"])
        data["agents"] = {n: Started(**s) for n, s in data["agents"].items()}
        return cls(**data)


def middleware_root(cluster: str) -> Path:
    """Where `up` keeps the secret, the coordinator's database, the logs and what it started."""
    return cluster_root(cluster) / "qos"


def node_name(index: int) -> str:
    return f"node{index}"


def up(cluster_name: str, policy: str, capacity_bps: float | None = None) -> Deployment:
    """Start the coordinator and every node's agent; return when each agent reported."""
    if policy not in POLICIES:
        raise QosConfigError("policy", f"must be one of {', '.join(POLICIES)}, not {policy!r}")
    if capacity_bps is not None and not capacity_bps > 0:
        raise QosConfigError("capacity", f"must be positive, not {capacity_bps!r}")
    cluster = LocalCluster.open(cluster_name)
    directory = middleware_root(cluster_name)
    if (directory / "deployment.json").exists():
        raise MiddlewareError(
            f"the I/O middleware is already up on '{cluster_name}' (`contio qos down` first)"
        )
    directory.mkdir(parents=True, exist_ok=True)
    capacities = {
        disk_node(node_name(n.index), k): capacity_bps
        or calibrate(Path(disk), CALIBRATION_BYTES).read_bps
        for n in cluster.state.nodes
        for k, disk in enumerate(n.disks, start=1)
    }
    secret = new_secret(directory / "secret")
    url = f"http://{cluster.state.host_address}:{_free_port(cluster.state.host_address)}"
    deployment = Deployment(cluster_name, url, policy, capacities, Started(0, 0), {})
    # In the cluster's own undo journal, so `contio cluster down` stops it first.
    entry = cluster.journal.record("qos-middleware", cluster=cluster_name)
    try:
        deployment.coordinator = _start_coordinator(deployment, secret)
        deployment.client.set_policy(policy)
        for node in cluster.state.nodes:
            name = node_name(node.index)
            deployment.agents[name] = _start_agent(deployment, name, node.netns, node.address,
                                                   node.disks)  # fmt: skip
            deployment.save()
        _wait_for_reports(deployment)
    except BaseException:
        cluster.journal.undo(entry)
        raise
    return deployment


def down(cluster_name: str) -> bool:
    """Stop every agent (they remove their VNodes), then the coordinator. False when the
    middleware was not up. Configuration (tenants, policy) stays for the next `up`."""
    was_up = (middleware_root(cluster_name) / "deployment.json").exists()
    journal = UndoJournal(cluster_root(cluster_name) / "journal.json")
    entries = journal.find("qos-middleware")
    for entry in entries:
        journal.undo(entry)  # stops it (undo_middleware)
    if not entries:
        undo_middleware({"cluster": cluster_name})
    return was_up


def undo_middleware(entry: Entry) -> None:
    """Undo-journal action: stop what `up` started for `entry["cluster"]`, if anything."""
    try:
        deployment = Deployment.load(entry["cluster"])
    except MiddlewareError:
        return
    _stop_all(deployment)


def _start_coordinator(deployment: Deployment, secret: str) -> Started:
    host, port = deployment.url.removeprefix("http://").rsplit(":", 1)
    argv = [
        sys.executable, "-m", "contio.middleware.services", "coordinator", "--listen", f"{host}:{port}",
        "--state", str(deployment.directory / "coordinator.sqlite"),
        "--secret-file", str(deployment.directory / "secret"),
    ]  # fmt: skip
    started = _spawn(argv, deployment.directory / "coordinator.log")
    deployment.coordinator = started
    deployment.save()
    client = CoordinatorClient(deployment.url, secret, timeout=1)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            client.status()
            return started
        except MiddlewareError:
            if time.monotonic() > deadline or not started.alive():
                raise AgentsDidNotReport(
                    f"the coordinator did not start: {_tail(deployment.directory / 'coordinator.log')}"
                ) from None
            time.sleep(0.1)


def _start_agent(
    deployment: Deployment, name: str, netns: str, address: str, disks: list[str]
) -> Started:
    """One process for the node, an agent per brick disk in it (`run_agents`)."""
    per_disk = []
    for k, disk in enumerate(disks, start=1):
        capacity = int(deployment.capacity_bps[disk_node(name, k)])
        per_disk += ["--disk", disk, "--capacity", str(capacity)]
    argv = [
        "nsenter", f"--net=/run/netns/{netns}", "--",
        sys.executable, "-m", "contio.middleware.services", "agent", "--node", name, "--address", address,
        *per_disk, "--coordinator", deployment.url,
        "--secret-file", str(deployment.directory / "secret"),
    ]  # fmt: skip
    return _spawn(argv, _agent_log(deployment, name))


def _spawn(argv: list[str], log: Path) -> Started:
    # The same contio the caller runs (a source tree or an installed package).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    with open(log, "ab") as out:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                 start_new_session=True, env=env)  # fmt: skip
    return Started(child.pid, process_start_time(child.pid) or 0)


def _wait_for_reports(deployment: Deployment) -> None:
    client = deployment.client
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        nodes = client.status()["nodes"]
        missing = [n for n in deployment.capacity_bps if n not in nodes or nodes[n]["stale"]]
        if not missing:
            return
        if time.monotonic() > deadline:
            details = "; ".join(f"{n}: {_tail(_agent_log(deployment, n))}" for n in missing)
            raise AgentsDidNotReport(
                f"agent(s) {', '.join(missing)} did not report to the coordinator at "
                f"{deployment.url} within {START_TIMEOUT:.0f} s ({details})"
            )
        time.sleep(0.2)


def _agent_log(deployment: Deployment, disk: str) -> Path:
    """The log of the process that runs `disk`'s agent (`node1.d2`: node1's)."""
    return deployment.directory / f"agent-{node_of(disk)}.log"


def _stop_all(deployment: Deployment) -> None:
    """SIGTERM the agents, wait for them (they clean up), then the coordinator."""
    for started in [*deployment.agents.values(), deployment.coordinator]:
        _stop(started)
    (deployment.directory / "deployment.json").unlink(missing_ok=True)


def _stop(started: Started) -> None:
    if not started.pid or not started.alive():
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(started.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT
    while started.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    if started.alive():
        with contextlib.suppress(ProcessLookupError):
            os.killpg(started.pid, signal.SIGKILL)


def process_start_time(pid: int) -> int | None:
    """When `pid` started (clock ticks since boot; None once it has exited): with the PID,
    it names one process, never a later one that was given the same PID."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    if fields[0] == "Z":
        return None  # a zombie has exited
    return int(fields[19])  # field 22 of proc(5), counted after the command name


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        try:
            probe.bind((host, COORDINATOR_PORT))
            return COORDINATOR_PORT
        except OSError:
            probe.bind((host, 0))
            return int(probe.getsockname()[1])


def _tail(log: Path, lines: int = 3) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return " | ".join(text[-lines:]) or "log empty"
