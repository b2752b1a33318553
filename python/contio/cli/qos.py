"""`contio qos …`: paper 004's I/O middleware on a Gluster cluster (docs/middleware.md).

`up`/`down`/`status`/`set`/`remove`/`policy` are what users type; `coordinator` and
`agent` are the two services `up` starts (and what a real cluster's hosts would run).
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from contio.cli.root import cli
from contio.errors import QosConfigError
from contio.middleware import deployment as middleware
from contio.middleware.agent import AgentConfig, NodeAgent
from contio.middleware.auth import read_secret
from contio.middleware.coordinator import Coordinator
from contio.middleware.http_api import CoordinatorServer
from contio.middleware.store import Store
from contio.qos.device import resolve
from contio.qos.limits import parse_rate
from contio.qos.policy import POLICIES

CLUSTER = click.option("--cluster", default="contio", show_default=True,
                       help="The local cluster (`contio cluster up --name`).")  # fmt: skip


@cli.group()
def qos() -> None:
    """Per-tenant I/O shares of a Gluster cluster: a coordinator and node agents (paper 004)."""


@qos.command()
@CLUSTER
@click.option("--policy", type=click.Choice(POLICIES), default="work-conserving",
              show_default=True, help="How node bandwidth is divided among tenants.")  # fmt: skip
@click.option("--capacity", help='Each node\'s bandwidth ("200MB/s"); default: measured '
              "with direct I/O on each node's brick disk.")  # fmt: skip
def up(cluster: str, policy: str, capacity: str | None) -> None:
    """Start the coordinator and one agent per node; wait until every agent reports."""
    bps = None if capacity is None else float(parse_rate("--capacity", capacity))
    started = middleware.up(cluster, policy, bps)
    click.echo(f"coordinator {started.url} (policy {started.policy})")
    for node, rate in started.capacity_bps.items():
        click.echo(f"agent {node}: capacity {rate / 1e6:.0f} MB/s")
    click.echo(f"stop with `contio qos down --cluster {cluster}`")


@qos.command()
@CLUSTER
def down(cluster: str) -> None:
    """Stop the agents (removing every cgroup and throttle) and the coordinator."""
    if middleware.down(cluster):
        click.echo(f"I/O middleware on '{cluster}' stopped; tenants and policy are kept")
    else:
        click.echo(f"the I/O middleware is not up on '{cluster}'")


@qos.command()
@CLUSTER
@click.option("--json", "as_json", is_flag=True, help="Print the coordinator's status as JSON.")
def status(cluster: str, as_json: bool) -> None:
    """Per node and tenant: the share in force, the measured rate, its share of the node."""
    state = middleware.Deployment.load(cluster).client.status()
    if as_json:
        import json

        click.echo(json.dumps(state, indent=2))
        return
    Console().print(_status_table(state))


def _status_table(state: dict[str, Any]) -> Table:
    table = Table(title=f"policy {state['policy']}")
    for column in ("node", "tenant", "priority", "target MB/s", "measured MB/s", "of node"):
        table.add_column(column, justify="left" if column in ("node", "tenant") else "right")
    for node, info in state["nodes"].items():
        label = f"{node} (stale)" if info["stale"] else node
        for tenant, row in info["tenants"].items():
            target = row["target_bps"]
            table.add_row(
                label, tenant, str(state["tenants"][tenant]["priority"]),
                "–" if target is None else f"{target / 1e6:.1f}",
                f"{row['measured_bps'] / 1e6:.1f}", f"{row['share_of_node']:.0%}",
            )  # fmt: skip
    return table


@qos.command(name="set")
@CLUSTER
@click.argument("tenant")
@click.option("--priority", type=int, required=True, help="1–100 (100 is the highest).")
@click.option("--reservation", help='Minimum per node, e.g. "20MB/s" (never lent).')
@click.option("--limit", help='Maximum per node, e.g. "80MB/s".')
def set_tenant(cluster: str, tenant: str, priority: int, reservation: str | None,
               limit: str | None) -> None:  # fmt: skip
    """Add a tenant or change its priority, reservation or limit."""
    middleware.Deployment.load(cluster).client.set_tenant(tenant, priority, reservation, limit)
    click.echo(f"tenant {tenant}: priority {priority}")


@qos.command()
@CLUSTER
@click.argument("tenant")
def remove(cluster: str, tenant: str) -> None:
    """Remove a tenant (its VNodes go at the agents' next interval)."""
    middleware.Deployment.load(cluster).client.remove_tenant(tenant)
    click.echo(f"tenant {tenant} removed")


@qos.command()
@CLUSTER
@click.argument("name")
def policy(cluster: str, name: str) -> None:
    """Switch the policy: static (paper 004's Algorithm 1) or work-conserving."""
    middleware.Deployment.load(cluster).client.set_policy(name)
    click.echo(f"policy {name}")


# The two services.


def _until_signal() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


@qos.command()
@click.option("--listen", required=True, help="HOST:PORT to serve the API on.")
@click.option("--state", type=click.Path(path_type=Path), required=True,
              help="The SQLite file that keeps the configuration.")  # fmt: skip
@click.option("--secret-file", type=click.Path(path_type=Path), required=True)
@click.option("--interval", type=float, default=1.0, show_default=True,
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


@qos.command()
@click.option("--node", required=True, help="This node's name at the coordinator.")
@click.option("--address", required=True, help="This node's address (its bricks' -s).")
@click.option("--disk", type=click.Path(exists=True, path_type=Path), required=True,
              help="A path on the brick disk the tenants share.")  # fmt: skip
@click.option("--capacity", required=True, help='The disk\'s bandwidth, e.g. "200MB/s".')
@click.option("--coordinator", "url", required=True, help="http://HOST:PORT")
@click.option("--secret-file", type=click.Path(path_type=Path), required=True)
@click.option("--interval", type=float, default=1.0, show_default=True)
@click.option("--volume", "volumes", multiple=True, metavar="TENANT=VOLUME",
              help="A tenant whose volume is not named after it. Repeatable.")  # fmt: skip
def agent(node: str, address: str, disk: Path, capacity: str, url: str, secret_file: Path,
          interval: float, volumes: tuple[str, ...]) -> None:  # fmt: skip
    """Run a node agent (started by `contio qos up`) until SIGTERM; then remove its VNodes."""
    mapping = {}
    for item in volumes:
        tenant, sep, volume = item.partition("=")
        if not sep or not tenant or not volume:
            raise QosConfigError("--volume", f"must be TENANT=VOLUME, not {item!r}")
        mapping[tenant] = volume
    config = AgentConfig(
        node, address, resolve(disk), float(parse_rate("--capacity", capacity)), url,
        read_secret(secret_file), interval, mapping,
    )  # fmt: skip
    stop = _until_signal()
    NodeAgent(config).run(stop.is_set)
