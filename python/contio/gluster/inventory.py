"""A real GlusterFS cluster from an inventory of hosts reached over SSH.

Inventory (YAML):

    nodes:
      - host: root@gs1.example.org     # ssh destination
        address: 10.0.0.11             # address peers and clients use (default: host's name)
        bricks: [/data/disk1, /data/disk2]   # directories on XFS file systems, one per disk
    ssh_options: ["-i", "/root/.ssh/id_ed25519"]
    contio_command: [/opt/contio/bin/contio]   # contio on the nodes (`contio qos up` agents)

contio does not format remote disks: brick directories must already be on XFS.
Fault events stop a node with `pkill` of glusterd and glusterfsd, and start it again with
`systemctl start glusterd`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contio.errors import BackendOptionError, ClusterError
from contio.gluster.node_access import SshNode, gluster_text, gluster_xml
from contio.host import command
from contio.input_files import InputFileProblem, read_input_text
from contio.validation_errors import problems_of
from contio.yaml_input import read_yaml


class InventoryNode(BaseModel):
    """One host of the inventory."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    host: str = Field(min_length=1)
    address: str | None = None
    bricks: list[str] = Field(min_length=1)


class Inventory(BaseModel):
    """The inventory file."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    nodes: list[InventoryNode] = Field(min_length=3)
    ssh_options: list[str] = Field(default_factory=list)
    contio_command: list[str] = Field(default_factory=lambda: ["contio"], min_length=1)
    """How a node runs contio (the I/O middleware's agents run there): words, e.g.
    `[sudo, /opt/contio/bin/contio]`."""


def stop_argvs() -> list[list[str]]:
    """Commands that crash a node: glusterd first (so it does not restart bricks), then bricks."""
    return [["pkill", "-KILL", "-x", "glusterd"], ["pkill", "-KILL", "-x", "glusterfsd"]]


def start_argv() -> list[str]:
    """The command that starts a node's glusterd again."""
    return ["systemctl", "start", "glusterd"]


class SshCluster:
    """Nodes from an inventory; gluster commands run on them over SSH."""

    def __init__(self, inventory: Inventory, path: Path):
        self.inventory = inventory
        self.path = path
        self._nodes = [
            SshNode(
                ssh_target=n.host,
                address=n.address or n.host.rpartition("@")[2],
                ssh_options=tuple(inventory.ssh_options),
            )
            for n in inventory.nodes
        ]

    @classmethod
    def load(cls, path: Path) -> SshCluster:
        """Read and validate an inventory; a `BackendOptionError` names the bad field."""
        try:
            raw = read_yaml(read_input_text(path, "an inventory file (YAML)"))
        except InputFileProblem as exc:
            raise BackendOptionError(
                "gluster", "inventory", f"cannot read inventory: {exc}"
            ) from None
        except yaml.YAMLError as exc:
            raise BackendOptionError("gluster", "inventory", f"cannot read {path}: {exc}") from None
        try:
            return cls(Inventory.model_validate(raw), path)
        except ValidationError as exc:
            found = [str(p) for p in problems_of(exc.errors(), Inventory)]
            more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
            said = "; ".join(found[:3]) + more
            raise BackendOptionError("gluster", "inventory", f"{path}: {said}") from None

    def reference(self) -> dict[str, Any]:
        return {"kind": "ssh", "inventory": str(self.path)}

    def nodes(self) -> list[SshNode]:
        return list(self._nodes)

    def controller(self) -> SshNode:
        for node in self._nodes:
            probe = command.run(
                node.argv(["gluster", "--mode=script", "pool", "list"]), check=False
            )
            if probe.returncode == 0:
                return node
        raise ClusterError(f"no node of {self.path} answers `gluster pool list`")

    def ensure_pool(self) -> None:
        """Probe every node from the first one that is not yet a peer."""
        first = self.controller()
        root = gluster_xml(first, ["pool", "list"])
        known = {p.findtext("hostname") for p in root.iter("peer")}
        for node in self._nodes:
            if node is not first and node.address not in known:
                gluster_text(first, ["peer", "probe", node.address])

    def brick_roots(self) -> list[list[str]]:
        return [list(n.bricks) for n in self.inventory.nodes]

    def make_dir(self, node: int, path: str) -> None:
        command.run(self._nodes[node].argv(["mkdir", "-p", "--", path]))

    def remove_dir(self, node: int, path: str) -> None:
        command.run(self._nodes[node].argv(["rm", "-rf", "--one-file-system", "--", path]))

    def stop_node(self, number: int, isolate: bool = False) -> None:
        if isolate:
            # Taking a remote host's network down would also cut the SSH session that
            # has to bring it back.
            raise ClusterError(
                "stop-node mode 'power-off' needs a local cluster (`contio cluster up`); "
                "on SSH hosts use mode 'kill', or power the machine off yourself"
            )
        node = self._nodes[number - 1]
        for argv in stop_argvs():
            command.run(node.argv(argv), check=False)  # pkill exits 1 when nothing matched

    def start_node(self, number: int) -> None:
        command.run(self._nodes[number - 1].argv(start_argv()))

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "ssh",
            "inventory": str(self.path),
            "nodes": [
                {"node": i, "host": n.ssh_target, "address": n.address, "bricks": b.bricks}
                for i, (n, b) in enumerate(
                    zip(self._nodes, self.inventory.nodes, strict=True), start=1
                )
            ],
        }
