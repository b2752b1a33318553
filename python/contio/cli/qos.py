"""`contio qos …`: paper 004's I/O middleware on a Gluster cluster (docs/middleware.md).

`up`/`down`/`status`/`set`/`remove`/`policy` are what users type; `coordinator` and
`agent` are the two services `up` starts (on an inventory's hosts over SSH, with
`calibrate` and `stop-agent`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from contio.cli.root import cli
from contio.errors import QosConfigError
from contio.middleware import deployment as middleware
from contio.middleware import services
from contio.middleware.coordinator import check_tenant_name
from contio.qos.limits import parse_rate
from contio.qos.policy import POLICIES
from contio.qos.priority import PRIORITY_MAX, PRIORITY_MIN

CLUSTER = click.option("--cluster", default="contio", show_default=True,
                       help="The local cluster (`contio cluster up --name`), or the name "
                       "given to an inventory's middleware at `up --inventory`.")  # fmt: skip


@cli.group()
def qos() -> None:
    """Per-tenant I/O shares of a Gluster cluster: a coordinator and node agents (paper 004)."""


@qos.command()
@CLUSTER
@click.option("--policy", type=click.Choice(POLICIES), default="work-conserving",
              show_default=True, help="How node bandwidth is divided among tenants.")  # fmt: skip
@click.option("--capacity", help='Each node\'s bandwidth ("200MB/s"); default: measured '
              "with direct I/O on each node's brick disk.")  # fmt: skip
@click.option("--inventory", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Real hosts (a gluster backend's SSH inventory): each host's agent is "
              "started there over SSH; --cluster names this deployment.")  # fmt: skip
@click.option("--listen", help="With --inventory: HOST[:PORT] the hosts reach the "
              "coordinator at (default: this machine's address towards the first host).")  # fmt: skip
def up(cluster: str, policy: str, capacity: str | None, inventory: Path | None,
       listen: str | None) -> None:  # fmt: skip
    """Start the coordinator and one agent per node; wait until every agent reports."""
    bps = None if capacity is None else float(parse_rate("--capacity", capacity))
    if inventory is not None:
        started = middleware.up_inventory(cluster, inventory, policy, bps, listen)
    elif listen is not None:
        raise QosConfigError("--listen", "only with --inventory (a local cluster's "
                             "coordinator listens on its bridge)")  # fmt: skip
    else:
        started = middleware.up(cluster, policy, bps)
    click.echo(f"coordinator {started.url} (policy {started.policy})")
    for node, rate in started.capacity_bps.items():
        click.echo(f"agent {node}: capacity {rate / 1e6:.0f} MB/s")
    click.echo(f"stop with `contio qos down --cluster {cluster}`")


@qos.command()
@CLUSTER
def down(cluster: str) -> None:
    """Stop the agents (removing every cgroup and throttle) and the coordinator; remove
    what agents that had died left."""
    stopped = middleware.down(cluster)
    for note in stopped.notes:
        click.echo(note)
    if stopped.was_up:
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
@click.option(
    "--priority",
    type=click.IntRange(PRIORITY_MIN, PRIORITY_MAX),
    required=True,
    help="1–100 (100 is the highest).",
)
@click.option("--reservation", help='Minimum per node, e.g. "20MB/s" or "500iops" (never lent).')
@click.option("--limit", help='Maximum per node, e.g. "80MB/s" or "2000iops".')
def set_tenant(cluster: str, tenant: str, priority: int, reservation: str | None,
               limit: str | None) -> None:  # fmt: skip
    """Add a tenant or change its priority, reservation or limit."""
    check_tenant_name(tenant)  # what the command line can judge, before the cluster
    for option, value in (("--reservation", reservation), ("--limit", limit)):
        if value is not None:
            parse_rate(option, value)
    middleware.Deployment.load(cluster).client.set_tenant(tenant, priority, reservation, limit)
    bounds = [f"{word} {value}" for word, value in (("reservation", reservation),
                                                     ("limit", limit)) if value]  # fmt: skip
    click.echo(f"tenant {tenant}: priority {priority}" + "".join(f", {b}" for b in bounds))


@qos.command()
@CLUSTER
@click.argument("tenant")
def remove(cluster: str, tenant: str) -> None:
    """Remove a tenant (its VNodes go at the agents' next interval)."""
    check_tenant_name(tenant)
    middleware.Deployment.load(cluster).client.remove_tenant(tenant)
    click.echo(f"tenant {tenant} removed")


@qos.command()
@CLUSTER
@click.argument("name", type=click.Choice(POLICIES))
def policy(cluster: str, name: str) -> None:
    """Switch the policy: static (paper 004's Algorithm 1) or work-conserving."""
    middleware.Deployment.load(cluster).client.set_policy(name)
    click.echo(f"policy {name}")


# The two services, light to start (see contio.middleware.services).
qos.add_command(services.coordinator)
qos.add_command(services.agent)
qos.add_command(services.stop_agent)
qos.add_command(services.calibrate_disks)
