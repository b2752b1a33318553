"""`contio cluster up|down|status`: the one-machine GlusterFS cluster for demos and tests."""

from __future__ import annotations

import json
from typing import Any

import click
from pydantic import ValidationError

from contio.cli.root import cli
from contio.errors import BackendOptionError
from contio.gluster import local_cluster
from contio.gluster.cluster_state import LocalClusterConfig
from contio.gluster.local_cluster import LocalCluster
from contio.validation_errors import reworded


@cli.group()
def cluster() -> None:
    """Build or remove a GlusterFS cluster on this machine (network namespaces)."""


def _config(**fields: Any) -> Any:
    try:
        return LocalClusterConfig(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        option = "--" + str(err["loc"][0]).replace("_", "-") if err["loc"] else "options"
        raise BackendOptionError("cluster", option, reworded(err, LocalClusterConfig)) from None


@cluster.command()
@click.option("--nodes", default=3, show_default=True, help="Number of nodes (at least 3).")
@click.option("--disks-per-node", default=2, show_default=True, help="Brick disks per node.")
@click.option("--disk-size", default="2GiB", show_default=True, help="Size of each sparse disk.")
@click.option("--subnet", default="10.213.0.0/24", show_default=True, help="Bridge subnet.")
@click.option("--name", default="contio", show_default=True, help="Cluster name.")
@click.option(
    "--disk-bandwidth", default=None,
    help="Make each brick disk a slow device of this rate (e.g. 100MB/s; default: not slowed).",
)  # fmt: skip
def up(
    nodes: int, disks_per_node: int, disk_size: str, subnet: str, name: str,
    disk_bandwidth: str | None,
) -> None:  # fmt: skip
    """Start NODES glusterd nodes, each with its own IP and XFS brick disks."""
    config = _config(
        name=name, nodes=nodes, disks_per_node=disks_per_node, disk_size=disk_size,
        subnet=subnet, disk_bandwidth=disk_bandwidth,
    )  # fmt: skip
    built = LocalCluster.up(config)
    for node in built.state.nodes:
        click.echo(f"node {node.index}: {node.address} (netns {node.netns})")
    click.echo(f"cluster '{name}' is up; remove it with `contio cluster down --name {name}`")


@cluster.command()
@click.option("--name", default="contio", show_default=True, help="Cluster name.")
def down(name: str) -> None:
    """Remove the cluster: processes, mounts, loop devices, namespaces, bridge, firewall rule."""
    if local_cluster.down(name):
        click.echo(f"cluster '{name}' removed")
    else:
        click.echo(f"no cluster '{name}' on this machine")


@cluster.command()
@click.option("--name", default="contio", show_default=True, help="Cluster name.")
def status(name: str) -> None:
    """Print the cluster's nodes, addresses and brick disks as JSON."""
    click.echo(json.dumps(LocalCluster.open(name).describe(), indent=2))
