"""`contio qos up` / `down` on the one-machine cluster: a coordinator and one agent per node.

The coordinator listens on the cluster's bridge address (the host side); every node's
agent runs in the node's network namespace (so it reaches the coordinator over the
bridge, as an agent on a real storage host would) and in the host's mount namespace
(cgroups and the brick disks' mounts are the host's). Both are contio processes in their
own sessions: they outlive the command, and `down` stops them (SIGTERM: an agent removes
its VNodes on the way out). What `up` started is kept in `<cluster>/qos/deployment.json`
with each process's start time, so `down` never signals a recycled PID.

On real hosts (`up_inventory`, an SSH inventory) the coordinator runs here, on an
address the nodes reach, and each host's agent is started over SSH as a daemon
(`contio qos agent --daemon`, the secret on its stdin); `down` stops each over SSH
(`contio qos stop-agent`). Such a deployment is kept under `<state>/qos-inventories/`.

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
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeVar

from contio.errors import (
    AgentsDidNotReport,
    MiddlewareError,
    MiddlewareNotUp,
    NodeUnreachable,
    QosConfigError,
)
from contio.gluster.inventory import SshCluster
from contio.gluster.local_cluster import LocalCluster, cluster_root
from contio.gluster.node_access import SshNode
from contio.host.process import start_ticks
from contio.host.state_dir import state_root
from contio.host.undo_journal import Entry, UndoJournal
from contio.host.waiting import poll_until
from contio.middleware.auth import new_secret, read_secret
from contio.middleware.daemon import Started, stop_process
from contio.middleware.disk_names import disk_node, node_of
from contio.middleware.http_api import CoordinatorClient
from contio.middleware.lost_agents import remove_left_by
from contio.qos.calibration import calibrate
from contio.qos.policy import POLICIES

COORDINATOR_PORT = 24080
STORE_FILE = "coordinator.sqlite"
"""The coordinator's tenants, policy and nodes, in `middleware_root`."""
START_TIMEOUT = 20.0
SSH_TIMEOUT = 120.0
"""Seconds one SSH command of `up`/`down` may take (a calibration reads 64 MiB)."""
CALIBRATION_BYTES = 64 << 20
INVENTORY_NAME = r"[a-z][a-z0-9-]{0,31}"
"""The name an inventory's deployment is kept and found under (`--cluster`)."""
T = TypeVar("T")


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
    host, port = _listen_address(listen, nodes[0].address)
    command = cluster.inventory.contio_command
    _check_nodes_run_contio(nodes, command)
    bricks = cluster.brick_roots()
    capacities = {
        disk_node(node_name(i), k): rate
        for i, rates in enumerate(_capacities(nodes, command, bricks, capacity_bps), start=1)
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
            started = _start_remote_agent(deployment, index, nodes[index - 1], command,
                                          bricks[index - 1], secret)  # fmt: skip
            deployment.agents[node_name(index)] = started

        try:
            _on_every_node(start, range(1, len(nodes) + 1))
        finally:
            deployment.save()  # what did start, so a failure below stops it
        _wait_for_reports(deployment)
    except BaseException:
        _stop_all(deployment)
        raise
    return deployment


def _listen_address(listen: str | None, first_node: str) -> tuple[str, int | None]:
    """HOST and PORT (None: the usual one if free) for the coordinator."""
    if listen is None:
        # The address this machine sends from towards the node (no packet is sent).
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect((first_node, 9))
            except OSError as exc:
                raise QosConfigError(
                    "--listen", f"no route to {first_node} ({exc}): give HOST:PORT the nodes reach"
                ) from None
            return str(probe.getsockname()[0]), None
    host, sep, port = listen.rpartition(":")
    if not sep:
        return listen, None
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise QosConfigError("--listen", f"must be HOST or HOST:PORT, not {listen!r}")
    return host, int(port)


def _on_every_node(work: Callable[[int], T], indexes: Sequence[int]) -> list[T]:
    """`work(i)` for every node index at once (each is an SSH round trip); the first
    failure is raised once all have ended."""
    with ThreadPoolExecutor(max_workers=max(1, len(indexes))) as pool:
        futures = [pool.submit(work, i) for i in indexes]
    return [f.result() for f in futures]


def _ssh(node: SshNode, argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(node.argv(argv), input=stdin, capture_output=True, text=True,
                              timeout=SSH_TIMEOUT, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 255, "", f"no answer in {SSH_TIMEOUT:.0f} s")


def _failure(proc: subprocess.CompletedProcess) -> str:
    lines = (proc.stderr or proc.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit {proc.returncode}"


def _check_nodes_run_contio(nodes: Sequence[SshNode], command: list[str]) -> None:
    """Every host answers over SSH and has contio; else exit 2 naming each that does not."""

    def probe(index: int) -> str | None:
        proc = _ssh(nodes[index - 1], [*command, "--version"])
        if proc.returncode == 0:
            return None
        return f"node {index} ({nodes[index - 1].ssh_target}): {_failure(proc)}"

    problems = [p for p in _on_every_node(probe, range(1, len(nodes) + 1)) if p]
    if problems:
        raise NodeUnreachable(
            f"inventory.nodes: cannot run `{' '.join(command)}` over SSH on "
            + "; ".join(problems)
            + " (check ssh_options, and contio_command: contio must be installed there)"
        )


def _capacities(
    nodes: Sequence[SshNode], command: list[str], bricks: list[list[str]], given: float | None
) -> list[list[float]]:
    """Per node, per brick disk: the given capacity, or each disk measured there."""
    if given is not None:
        return [[given] * len(disks) for disks in bricks]

    def measure(index: int) -> list[float]:
        disks = [w for d in bricks[index - 1] for w in ("--disk", d)]
        proc = _ssh(nodes[index - 1], [*command, "qos", "calibrate", "--bytes",
                                       str(CALIBRATION_BYTES), *disks])  # fmt: skip
        if proc.returncode != 0:
            raise MiddlewareError(f"calibrating node {index}'s disks failed: {_failure(proc)}")
        return [float(rate) for rate in json.loads(proc.stdout.strip().splitlines()[-1])]

    return _on_every_node(measure, range(1, len(nodes) + 1))


def _start_remote_agent(
    deployment: Deployment, index: int, node: SshNode, command: list[str],
    disks: list[str], secret: str,
) -> Started:  # fmt: skip
    """`contio qos agent --daemon` on the node's host, its secret on stdin."""
    name = node_name(index)
    arguments = _agent_arguments(deployment, name, node.address, disks, "-")
    argv = [*command, "qos", *arguments, "--daemon"]
    proc = _ssh(node, argv, stdin=secret + "\n")
    if proc.returncode != 0:
        raise MiddlewareError(f"the agent of {name} ({node.ssh_target}) did not start: "
                              f"{_failure(proc)}")  # fmt: skip
    return Started(**json.loads(proc.stdout.strip().splitlines()[-1]))


def _stop_remote_agents(deployment: Deployment) -> list[str]:
    """`contio qos stop-agent` on every host that runs one, and what each said (a dead
    agent's leftovers removed there); a host that cannot be reached is named (its agent
    keeps its last shares, fail-static, until stopped there)."""
    assert deployment.inventory is not None
    cluster = SshCluster.load(Path(deployment.inventory))
    nodes, command = cluster.nodes(), cluster.inventory.contio_command
    running = [i for i in range(1, len(nodes) + 1) if node_name(i) in deployment.agents]

    def stop(index: int) -> subprocess.CompletedProcess:
        name = node_name(index)
        return _ssh(nodes[index - 1], [*command, "qos", "stop-agent", "--node", name])

    answers = dict(zip(running, _on_every_node(stop, running), strict=True))
    problems = [f"{node_name(i)}: {_failure(p)}" for i, p in answers.items() if p.returncode]
    if problems:
        raise MiddlewareError("could not stop the agent(s) of " + "; ".join(problems))
    said = [line for p in answers.values() for line in p.stdout.strip().splitlines()]
    return [line for line in said if "stopped (PID" not in line]  # the news only


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
    started = _spawn(argv, deployment.directory / "coordinator.log")
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
    log = _tail(deployment.directory / "coordinator.log")
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
    return _spawn(argv, _agent_log(deployment, name))


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


def _spawn(argv: list[str], log: Path) -> Started:
    # The same contio the caller runs (a source tree or an installed package).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    with open(log, "ab") as out:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                 start_new_session=True, env=env)  # fmt: skip
    return Started(child.pid, start_ticks(child.pid) or 0)


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
    return _tail(_agent_log(deployment, disk))


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
