"""The middleware's two long-running services: the coordinator and a node agent.

`contio qos coordinator|agent` are these commands; `contio qos up` starts them as
`python -m contio.middleware.services …`, which imports only the middleware (about a
second) instead of the whole CLI (about four, on a busy two-core machine, times one
process per node). On the hosts of an SSH inventory `up` runs `contio qos calibrate`,
`contio qos agent --daemon` and `contio qos stop-agent` over SSH, with the cluster's
secret on the agent's stdin (never on a command line, where `ps` would show it).
"""

from __future__ import annotations

import json
import shutil
import signal
import sys
import threading
from pathlib import Path

import click

from contio.errors import QosConfigError
from contio.exit_codes import run_command
from contio.middleware.agent import AgentConfig, NodeAgent, agents_root, run_agents
from contio.middleware.auth import read_secret
from contio.middleware.coordinator import Coordinator
from contio.middleware.daemon import PidFile, detach, stop_process
from contio.middleware.disk_names import disk_node
from contio.middleware.http_api import CoordinatorServer
from contio.middleware.lost_agents import remove_left_by
from contio.middleware.store import Store
from contio.qos.calibration import CALIBRATION_BLOCK, CALIBRATION_BYTES, calibrate
from contio.qos.device import resolve
from contio.qos.limits import parse_rate

STDIN = Path("-")


@click.group()
def services() -> None:
    """The I/O middleware's services."""


def _until_signal() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


@services.command()
@click.option("--listen", required=True, help="HOST:PORT to serve the API on.")
@click.option("--state", type=click.Path(path_type=Path), required=True,
              help="The SQLite file that keeps the configuration.")  # fmt: skip
@click.option("--secret-file", type=click.Path(path_type=Path), required=True)
@click.option("--interval", type=float, default=0.5, show_default=True,
              help="The agents' control interval in seconds (stale after three).")  # fmt: skip
def coordinator(listen: str, state: Path, secret_file: Path, interval: float) -> None:
    """Run the coordinator (started by `contio qos up`) until SIGTERM."""
    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise QosConfigError("--listen", f"must be HOST:PORT, not {listen!r}")
    stop = _until_signal()
    store = Store(state)
    server = CoordinatorServer(
        (host, int(port)), Coordinator(store, interval), read_secret(secret_file)
    )
    server.serve_in_thread()
    click.echo(f"coordinator serving {server.url}", err=True)
    stop.wait()
    server.shutdown()
    server.server_close()
    store.close()


@services.command()
@click.option("--node", required=True, help="This node's name at the coordinator.")
@click.option("--address", required=True, help="This node's address (its bricks' -s).")
@click.option("--disk", "disks", type=click.Path(exists=True, path_type=Path), required=True,
              multiple=True, help="A path on a brick disk the tenants share. Repeatable: "
              "the second is node NAME.d2 at the coordinator, and so on.")  # fmt: skip
@click.option("--capacity", "capacities", required=True, multiple=True,
              help='The disk\'s bandwidth, e.g. "200MB/s": one for every disk, or one '
              "per --disk in the same order.")  # fmt: skip
@click.option("--coordinator", "url", required=True, help="http://HOST:PORT")
@click.option("--secret-file", type=click.Path(path_type=Path), required=True,
              help="The cluster's secret; - reads it from stdin.")  # fmt: skip
@click.option("--interval", type=float, default=0.5, show_default=True)
@click.option("--volume", "volumes", multiple=True, metavar="TENANT=VOLUME",
              help="A tenant whose volume is not named after it. Repeatable.")  # fmt: skip
@click.option("--daemon", is_flag=True, help="Detach once the agents are made; print the "
              "daemon's PID and start time as JSON (`contio qos stop-agent` stops it).")  # fmt: skip
def agent(node: str, address: str, disks: tuple[Path, ...], capacities: tuple[str, ...],
          url: str, secret_file: Path, interval: float, volumes: tuple[str, ...],
          daemon: bool) -> None:  # fmt: skip
    """Run a node's agents, one per brick disk (started by `contio qos up`), until
    SIGTERM; then remove their VNodes."""
    mapping = {}
    for item in volumes:
        tenant, sep, volume = item.partition("=")
        if not sep or not tenant or not volume:
            raise QosConfigError("--volume", f"must be TENANT=VOLUME, not {item!r}")
        mapping[tenant] = volume
    if len(capacities) not in (1, len(disks)):
        raise QosConfigError(
            "--capacity", f"give one, or one per --disk ({len(disks)}), not {len(capacities)}"
        )
    rates = [float(parse_rate("--capacity", c)) for c in capacities]
    rates *= len(disks) // len(rates)  # one for every disk
    devices = [resolve(disk) for disk in disks]
    if len(set(devices)) != len(devices):
        raise QosConfigError("--disk", "names the same disk twice")
    secret = sys.stdin.readline().strip() if secret_file == STDIN else read_secret(secret_file)
    if not secret:
        raise QosConfigError("--secret-file", "the secret is empty")
    configs = [
        AgentConfig(
            disk_node(node, k), address, device, rates[k - 1],
            url, secret, interval, mapping,
            siblings=tuple(d for d in devices if d != device),
        )
        for k, device in enumerate(devices, start=1)
    ]  # fmt: skip
    pid_file = _daemon_pid_file(node)
    tell = detach(pid_file, pid_file.path.with_suffix(".log")) if daemon else None
    stop = _until_signal()
    agents: list[NodeAgent] = []
    try:
        for config in configs:
            agents.append(NodeAgent(config))
    except BaseException as exc:
        for made in agents:
            made.close()
        if tell is not None:
            tell(str(exc))
        raise
    if tell is not None:
        tell(None)
    try:
        run_agents(agents, stop.is_set)
    finally:
        if daemon:
            pid_file.remove_own()


def _daemon_pid_file(node: str) -> PidFile:
    """A detached agent's PID file (`<state>/qos-agents/NODE.pid`, its log beside it)."""
    return PidFile(agents_root() / f"{node}.pid")


@services.command(name="stop-agent")
@click.option("--node", required=True, help="The node whose detached agent to stop.")
def stop_agent(node: str) -> None:
    """Stop a node's agent started with --daemon (SIGTERM: it removes its VNodes)."""
    pid_file = _daemon_pid_file(node)
    started = pid_file.running()
    if started is None:
        click.echo(f"the agent of {node} is not running")
    elif stop_process(started):
        click.echo(f"the agent of {node} stopped (PID {started.pid})")
    else:
        click.echo(f"the agent of {node} did not stop in time and was killed")
    pid_file.path.unlink(missing_ok=True)  # a dead agent's names no one now
    for line in remove_left_by(node).lines(node):  # a dead or killed one's VNodes
        click.echo(line)


@services.command(name="calibrate")
@click.option("--disk", "disks", type=click.Path(exists=True, file_okay=False, path_type=Path),
              required=True, multiple=True,
              help="A directory on a brick disk (the file measured goes there). Repeatable.")  # fmt: skip
@click.option("--bytes", "size", type=click.IntRange(min=CALIBRATION_BLOCK),
              default=CALIBRATION_BYTES, show_default=True,
              help=f"How much to write and read back: a multiple of {CALIBRATION_BLOCK} (1 MiB).")  # fmt: skip
def calibrate_disks(disks: tuple[Path, ...], size: int) -> None:
    """Measure each disk's direct-I/O read bandwidth; print them as a JSON list (bytes/s)."""
    if size % CALIBRATION_BLOCK:
        raise click.BadParameter(
            f"{size} is not a multiple of {CALIBRATION_BLOCK} (1 MiB)", param_hint="'--bytes'"
        )
    for disk in disks:
        if not disk.is_dir():  # a device or a FIFO is neither a file nor a folder to click
            raise click.BadParameter(f"{str(disk)!r} is not a directory", param_hint="'--disk'")
        free = shutil.disk_usage(disk).free
        if size > free:
            raise click.BadParameter(
                f"{size} bytes do not fit on {str(disk)!r} ({free} bytes free)",
                param_hint="'--bytes'",
            )
    click.echo(json.dumps([calibrate(disk, size).read_bps for disk in disks]))


def main() -> None:
    """`python -m contio.middleware.services`: bad input exits 2 with the field named."""
    run_command(services)


if __name__ == "__main__":
    main()
