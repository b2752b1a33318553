"""The SSH side of `contio qos up --inventory`: each host of an inventory checked,
its disks measured, its agent started and stopped with `contio` over SSH, every host
at once (each is a round trip).

Nothing here knows a deployment: callers pass the hosts, the contio command there and
the arguments, so `deployment` (which keeps what was started) imports this and not the
other way round.
"""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from contio.errors import MiddlewareError, NodeUnreachable, QosConfigError
from contio.gluster.node_access import SshNode
from contio.middleware.daemon import Started

SSH_TIMEOUT = 120.0
"""Seconds one SSH command of `up`/`down` may take (a calibration reads 64 MiB)."""
T = TypeVar("T")


def listen_address(listen: str | None, first_node: str) -> tuple[str, int | None]:
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


def on_every_node(work: Callable[[int], T], indexes: Sequence[int]) -> list[T]:
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


def check_nodes_run_contio(nodes: Sequence[SshNode], command: list[str]) -> None:
    """Every host answers over SSH and has contio; else exit 2 naming each that does not."""

    def probe(index: int) -> str | None:
        proc = _ssh(nodes[index - 1], [*command, "--version"])
        if proc.returncode == 0:
            return None
        return f"node {index} ({nodes[index - 1].ssh_target}): {_failure(proc)}"

    problems = [p for p in on_every_node(probe, range(1, len(nodes) + 1)) if p]
    if problems:
        raise NodeUnreachable(
            f"inventory.nodes: cannot run `{' '.join(command)}` over SSH on "
            + "; ".join(problems)
            + " (check ssh_options, and contio_command: contio must be installed there)"
        )


def capacities(
    nodes: Sequence[SshNode], command: list[str], bricks: list[list[str]],
    given: float | None, calibration_bytes: int,
) -> list[list[float]]:  # fmt: skip
    """Per node, per brick disk: the given capacity, or each disk measured there."""
    if given is not None:
        return [[given] * len(disks) for disks in bricks]

    def measure(index: int) -> list[float]:
        disks = [w for d in bricks[index - 1] for w in ("--disk", d)]
        proc = _ssh(nodes[index - 1], [*command, "qos", "calibrate", "--bytes",
                                       str(calibration_bytes), *disks])  # fmt: skip
        if proc.returncode != 0:
            raise MiddlewareError(f"calibrating node {index}'s disks failed: {_failure(proc)}")
        return [float(rate) for rate in json.loads(proc.stdout.strip().splitlines()[-1])]

    return on_every_node(measure, range(1, len(nodes) + 1))


def start_agent(
    node: SshNode, name: str, command: list[str], arguments: list[str], secret: str
) -> Started:
    """`contio qos <arguments> --daemon` on the node's host, its secret on stdin."""
    proc = _ssh(node, [*command, "qos", *arguments, "--daemon"], stdin=secret + "\n")
    if proc.returncode != 0:
        raise MiddlewareError(f"the agent of {name} ({node.ssh_target}) did not start: "
                              f"{_failure(proc)}")  # fmt: skip
    return Started(**json.loads(proc.stdout.strip().splitlines()[-1]))


def stop_agents(nodes: Sequence[SshNode], command: list[str], running: dict[int, str]) -> list[str]:
    """`contio qos stop-agent` on every host in `running` (index: node name), and what
    each said (a dead agent's leftovers removed there); a host that cannot be reached is
    named (its agent keeps its last shares, fail-static, until stopped there)."""

    def stop(index: int) -> subprocess.CompletedProcess:
        return _ssh(nodes[index - 1], [*command, "qos", "stop-agent", "--node", running[index]])

    answers = dict(zip(running, on_every_node(stop, list(running)), strict=True))
    problems = [f"{running[i]}: {_failure(p)}" for i, p in answers.items() if p.returncode]
    if problems:
        raise MiddlewareError("could not stop the agent(s) of " + "; ".join(problems))
    said = [line for p in answers.values() for line in p.stdout.strip().splitlines()]
    return [line for line in said if "stopped (PID" not in line]  # the news only
