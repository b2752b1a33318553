"""What `contio cluster up` is asked to build (`LocalClusterConfig`) and what it built
(`ClusterState`, saved as `state.json` so later commands and `down` find it).
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from contio.errors import QosConfigError
from contio.host import filesystem
from contio.qos.limits import ALLOWED_RATE, parse_rate


class LocalClusterConfig(BaseModel):
    """What `contio cluster up` builds."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name: str = Field("contio", pattern=r"^[a-z][a-z0-9]{0,7}$")
    nodes: int = Field(3, ge=3, le=16)
    disks_per_node: int = Field(2, ge=1, le=8)
    disk_size: str = "2GiB"
    subnet: ipaddress.IPv4Network = ipaddress.IPv4Network("10.213.0.0/24")
    disk_bandwidth: int | str | None = None
    """Each brick disk a slow device of this many bytes/s (reads and writes together)."""

    @field_validator("disk_bandwidth")
    @classmethod
    def _disk_bandwidth(cls, value: int | str | None) -> int | None:
        if value is None:
            return None
        try:
            return parse_rate("disk_bandwidth", value)
        except QosConfigError:
            raise ValueError(f"must be {ALLOWED_RATE}, not {value!r}") from None

    @field_validator("disk_size")
    @classmethod
    def _disk_size(cls, value: str) -> str:
        if filesystem.parse_size(value) < 512 * 1024**2:
            raise ValueError("must be at least 512MiB (XFS needs ~300 MiB)")
        return value

    @field_validator("subnet")
    @classmethod
    def _subnet(cls, value: ipaddress.IPv4Network) -> ipaddress.IPv4Network:
        if value.prefixlen > 26:
            raise ValueError("must have room for the nodes: a prefix of /26 or shorter")
        return value


class NodeState(BaseModel):
    """One node: namespace, address, directory, brick disk mount points."""

    index: int
    netns: str
    address: str
    dir: str
    disks: list[str]


class ClusterState(BaseModel):
    """Saved to `state.json` so later commands (and `down`) find the cluster."""

    config: LocalClusterConfig
    bridge: str
    host_address: str
    nodes: list[NodeState]


def planned_state(config: LocalClusterConfig, root: Path) -> ClusterState:
    """The cluster `config` describes, before anything is built: its nodes' namespaces,
    addresses (the subnet's first host is the bridge, nodes from the tenth), directories
    and brick disks under `root`."""
    hosts = list(config.subnet.hosts())
    prefix = f"ct{config.name[:7]}"
    nodes = [
        NodeState(
            index=i,
            netns=f"{prefix}n{i}",
            address=str(hosts[9 + i]),
            dir=str(root / f"node{i}"),
            disks=[
                str(root / f"node{i}" / f"disk{k}") for k in range(1, config.disks_per_node + 1)
            ],
        )
        for i in range(1, config.nodes + 1)
    ]
    return ClusterState(
        config=config, bridge=f"{prefix}br", host_address=str(hosts[0]), nodes=nodes
    )
