"""`contio qos up` / `down` on the one-machine cluster: a coordinator and one agent per node.

The coordinator listens on the cluster's bridge address (the host side); every node's
agent runs in the node's network namespace (so it reaches the coordinator over the
bridge, as an agent on a real storage host would) and in the host's mount namespace
(cgroups and the brick disks' mounts are the host's). Both are contio processes in their
own sessions: they outlive the command, and `down` stops them (SIGTERM: an agent removes
its VNodes on the way out). What `up` started is kept in `<cluster>/qos/deployment.json`
with each process's start time, so `down` never signals a recycled PID.

On real hosts (`up_inventory`, an SSH inventory; `ssh_agents` does the SSH) the
coordinator runs here and each host's agent is a daemon there. Such a deployment is
kept under `<state>/qos-inventories/`.

`up` checks everything it can before it changes anything (policy name, capacity, on
real hosts that every node runs contio over SSH), then waits for every agent's first
report; an agent that does not report in time stops `up` with what its log says, and
what was started is stopped again.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from contio.errors import (
    AgentsDidNotReport,
    MiddlewareError,
    MiddlewareNotUp,
    QosConfigError,
)
from contio.gluster.inventory import SshCluster
from contio.gluster.local_cluster import LocalCluster, cluster_root
from contio.host.state_dir import state_root
from contio.host.undo_journal import Entry, UndoJournal
from contio.host.waiting import poll_until
from contio.middleware import ssh_agents
from contio.middleware.auth import new_secret, read_secret
from contio.middleware.daemon import Started, log_tail, spawn, stop_process
from contio.middleware.disk_names import disk_node, node_of
from contio.middleware.http_api import CoordinatorClient
from contio.middleware.lost_agents import remove_left_by
from contio.qos.calibration import calibrate
from contio.qos.policy import POLICIES

COORDINATOR_PORT = 24080
STORE_FILE = "coordinator.sqlite"
"""The coordinator's tenants, policy and nodes, in `middleware_root`."""
START_TIMEOUT = 20.0
CALIBRATION_BYTES = 64 << 20
INVENTORY_NAME = r"[a-z][a-z0-9-]{0,31}"
"""The name an inventory's deployment is kept and found under (`--cluster`)."""


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
    """Per node: the process running its disks' agents (on an inventory's host: there)."""
    inventory: str | None = None
    """The SSH inventory whose hosts run the agents; None on the local cluster."""

    @property
    def directory(self) -> Path:
        return middleware_root(self.cluster, remote=self.inventory is not None)

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
        path = _deployment_file(cluster)
        if path is None:
            raise MiddlewareNotUp(
                f"the I/O middleware is not up on cluster '{cluster}' (run `contio qos up`)"
            )
        data = json.loads(path.read_text())
        data["coordinator"] = Started(**data["coordinator"])
        data["agents"] = {n: Started(**s) for n, s in data["agents"].items()}
        return cls(**data)


def middleware_root(cluster: str, remote: bool = False) -> Path:
    """Where `up` keeps the secret, the coordinator's database, the logs and what it
    started: in the local cluster's directory, or (`remote`: an SSH inventory's hosts) in
    a directory of its own."""
    return state_root() / "qos-inventories" / cluster if remote else cluster_root(cluster) / "qos"


def _deployment_file(cluster: str) -> Path | None:
    """The `deployment.json` of the middleware that is up under this name, if one is."""
    for remote in (False, True):
        path = middleware_root(cluster, remote) / "deployment.json"
        if path.exists():
            return path
    return None


def _check_settings(policy: str, capacity_bps: float | None) -> None:
    if policy not in POLICIES:
        raise QosConfigError("policy", f"must be one of {', '.join(POLICIES)}, not {policy!r}")
    if capacity_bps is not None and not capacity_bps > 0:
        raise QosConfigError("capacity", f"must be positive, not {capacity_bps!r}")


def _refuse_second(cluster_name: str) -> None:
    if _deployment_file(cluster_name) is not None:
        raise MiddlewareError(
            f"the I/O middleware is already up on '{cluster_name}' (`contio qos down` first)"
        )


def node_name(index: int) -> str:
    return f"node{index}"


def up(cluster_name: str, policy: str, capacity_bps: float | None = None) -> Deployment:
    """Start the coordinator and every node's agent; return when each agent reported."""
    _check_settings(policy, capacity_bps)
    cluster = LocalCluster.open(cluster_name)
    directory = middleware_root(cluster_name)
    _refuse_second(cluster_name)
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


def up_inventory(
    name: str, inventory: Path, policy: str,
    capacity_bps: float | None = None, listen: str | None = None,
) -> Deployment:  # fmt: skip
    """Start the coordinator here and an agent on every host of an SSH inventory (over
    SSH, as daemons); return when each agent reported. `name` names the deployment for
    the other `contio qos` commands; `listen` is HOST[:PORT] the hosts reach this machine
    at (default: the address this machine reaches the first host from)."""
    _check_settings(policy, capacity_bps)
    if not re.fullmatch(INVENTORY_NAME, name):
        raise QosConfigError(
            "--cluster", f"must match {INVENTORY_NAME} (a directory's name), not {name!r}"
        )
    if LocalCluster.exists(name):
        # Runs on that cluster would take this deployment for its own.
        raise QosConfigError(
            "--cluster", f"'{name}' is a local cluster's name: give the inventory's "
            "deployment a name of its own"
        )  # fmt: skip
    cluster = SshCluster.load(inventory)
    _refuse_second(name)
    nodes = cluster.nodes()
    host, port = ssh_agents.listen_address(listen, nodes[0].address)
    command = cluster.inventory.contio_command
    ssh_agents.check_nodes_run_contio(nodes, command)
    bricks = cluster.brick_roots()
    capacities = {
        disk_node(node_name(i), k): rate
        for i, rates in enumerate(
            ssh_agents.capacities(nodes, command, bricks, capacity_bps, CALIBRATION_BYTES), start=1
        )
        for k, rate in enumerate(rates, start=1)
    }
    directory = middleware_root(name, remote=True)
    secret = new_secret(directory / "secret")
    url = f"http://{host}:{port or _free_port(host)}"
    deployment = Deployment(name, url, policy, capacities, Started(0, 0), {},
                            inventory=str(inventory.resolve()))  # fmt: skip
    try:
        deployment.coordinator = _start_coordinator(deployment, secret)
        deployment.client.set_policy(policy)

        def start(index: int) -> None:
            name, node = node_name(index), nodes[index - 1]
            arguments = _agent_arguments(deployment, name, node.address, bricks[index - 1], "-")
            started = ssh_agents.start_agent(node, name, command, arguments, secret)
            deployment.agents[name] = started

        try:
            ssh_agents.on_every_node(start, range(1, len(nodes) + 1))
        finally:
            deployment.save()  # what did start, so a failure below stops it
        _wait_for_reports(deployment)
    except BaseException:
        _stop_all(deployment)
        raise
    return deployment


@dataclass
class Stopped:
    """What `down` found and did."""

    was_up: bool
    notes: list[str] = field(default_factory=list)
    """Services that had died, what they left that was removed, and what remains with
    how to remove it."""


def down(cluster_name: str) -> Stopped:
    """Stop every agent (they remove their VNodes), then the coordinator; remove what
    dead agents left. Configuration (tenants, policy) stays for the next `up`."""
    if _deployment_file(cluster_name) is None:
        return Stopped(False)
    deployment = Deployment.load(cluster_name)
    notes = _stop_all(deployment)
    if deployment.inventory is None:  # the local cluster's journal no longer needs to
        journal = UndoJournal(cluster_root(cluster_name) / "journal.json")
        for entry in journal.find("qos-middleware"):
            journal.undo(entry)  # stopped already: undo_middleware finds nothing up
    return Stopped(True, notes)


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
        "--state", str(deployment.directory / STORE_FILE),
        "--secret-file", str(deployment.directory / "secret"),
    ]  # fmt: skip
    started = spawn(argv, deployment.directory / "coordinator.log")
    deployment.coordinator = started
    deployment.save()
    client = CoordinatorClient(deployment.url, secret, timeout=1)

    def answers() -> bool:
        try:
            client.status()
            return True
        except MiddlewareError:
            if not started.alive():
                raise _coordinator_failed(deployment) from None
            return False

    if not poll_until(answers, START_TIMEOUT, interval=0.1):
        raise _coordinator_failed(deployment)
    return started


def _coordinator_failed(deployment: Deployment) -> AgentsDidNotReport:
    log = log_tail(deployment.directory / "coordinator.log")
    return AgentsDidNotReport(f"the coordinator did not start: {log}")


def _start_agent(
    deployment: Deployment, name: str, netns: str, address: str, disks: list[str]
) -> Started:
    """One process for the node, an agent per brick disk in it (`run_agents`)."""
    argv = [
        "nsenter", f"--net=/run/netns/{netns}", "--",
        sys.executable, "-m", "contio.middleware.services",
        *_agent_arguments(deployment, name, address, disks, str(deployment.directory / "secret")),
    ]  # fmt: skip
    return spawn(argv, _agent_log(deployment, name))


def _agent_arguments(
    deployment: Deployment, name: str, address: str, disks: list[str], secret_file: str
) -> list[str]:
    """`agent …` for node `name`: each brick disk with its capacity, the coordinator."""
    per_disk = []
    for k, disk in enumerate(disks, start=1):
        capacity = int(deployment.capacity_bps[disk_node(name, k)])
        per_disk += ["--disk", disk, "--capacity", str(capacity)]
    return [
        "agent", "--node", name, "--address", address, *per_disk,
        "--coordinator", deployment.url, "--secret-file", secret_file,
    ]  # fmt: skip


def _wait_for_reports(deployment: Deployment) -> None:
    client = deployment.client

    def missing() -> list[str]:
        nodes = client.status()["nodes"]
        return [n for n in deployment.capacity_bps if n not in nodes or nodes[n]["stale"]]

    if poll_until(lambda: not missing(), START_TIMEOUT, interval=0.2):
        return
    late = missing()
    details = "; ".join(f"{n}: {_agent_log_tail(deployment, n)}" for n in late)
    raise AgentsDidNotReport(
        f"agent(s) {', '.join(late)} did not report to the coordinator at "
        f"{deployment.url} within {START_TIMEOUT:.0f} s ({details})"
    )


def _agent_log_tail(deployment: Deployment, disk: str) -> str:
    if deployment.inventory is not None:  # on the host, beside its PID file
        return f"see qos-agents/{node_of(disk)}.log in contio's state directory there"
    return log_tail(_agent_log(deployment, disk))


def _agent_log(deployment: Deployment, disk: str) -> Path:
    """The log of the process that runs `disk`'s agent (`node1.d2`: node1's)."""
    return deployment.directory / f"agent-{node_of(disk)}.log"


def _stop_all(deployment: Deployment) -> list[str]:
    """SIGTERM the agents, wait for them (they clean up), then the coordinator; remove
    what agents that had died left. Returns what was found dead, removed or left."""
    notes = []
    coordinator_died = deployment.coordinator.pid and not deployment.coordinator.alive()
    try:
        if deployment.inventory is not None:
            notes += _stop_remote_agents(deployment)  # kept on record when a host is lost
        else:
            for started in deployment.agents.values():
                stop_process(started)  # one that had died, or would not stop, is gone now
            for node in deployment.agents:
                notes += remove_left_by(node).lines(node)
    finally:
        stop_process(deployment.coordinator)
    if coordinator_died:
        notes.append(f"the coordinator (PID {deployment.coordinator.pid}) had died; its "
                     "tenants and policy are kept for the next `contio qos up`")  # fmt: skip
    (deployment.directory / "deployment.json").unlink(missing_ok=True)
    return notes


def _stop_remote_agents(deployment: Deployment) -> list[str]:
    """`ssh_agents.stop_agents` on the inventory's hosts that run one of its agents."""
    assert deployment.inventory is not None
    cluster = SshCluster.load(Path(deployment.inventory))
    nodes = cluster.nodes()
    running = {
        i: node_name(i) for i in range(1, len(nodes) + 1) if node_name(i) in deployment.agents
    }
    return ssh_agents.stop_agents(nodes, cluster.inventory.contio_command, running)


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        try:
            probe.bind((host, COORDINATOR_PORT))
            return COORDINATOR_PORT
        except OSError:
            probe.bind((host, 0))
            return int(probe.getsockname()[1])
