"""What the gluster backend and fault events need from a cluster, whichever kind it is.

Two kinds: `local` — the one-machine cluster of `contio cluster up` (network
namespaces), and `ssh` — real hosts from an inventory. A reference (a small dict) names
a cluster so a journal can find it again after a crash.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from contio.gluster.inventory import SshCluster
from contio.gluster.local_cluster import LocalCluster
from contio.gluster.node_access import GlusterNode


class GlusterCluster(Protocol):
    """A trusted pool of glusterd nodes with brick directories on XFS."""

    def reference(self) -> dict[str, Any]:
        """How to open this cluster again (`open_cluster`)."""
        ...

    def nodes(self) -> Sequence[GlusterNode]:
        """Every node, in order; node numbers in events are 1-based positions here."""
        ...

    def controller(self) -> GlusterNode:
        """A node whose glusterd is running, to issue gluster commands on."""
        ...

    def brick_roots(self) -> list[list[str]]:
        """Per node, the directories (each on its own XFS) where bricks may be made."""
        ...

    def make_dir(self, node: int, path: str) -> None:
        """Create a brick directory on node `node` (0-based)."""
        ...

    def remove_dir(self, node: int, path: str) -> None:
        """Remove a brick directory and its contents on node `node` (0-based)."""
        ...

    def stop_node(self, node: int, isolate: bool = False) -> None:
        """Kill the node's glusterd and brick processes (1-based node number); with
        `isolate`, cut the node off the network first (clients then hear nothing)."""
        ...

    def start_node(self, node: int) -> None:
        """Start the node's glusterd again, its network too (1-based node number)."""
        ...

    def describe(self) -> dict[str, Any]:
        """Nodes, addresses and brick file systems, for result files."""
        ...


def open_cluster(reference: dict[str, Any]) -> GlusterCluster:
    """The cluster a reference names."""
    if reference["kind"] == "local":
        return LocalCluster.open(reference["name"])
    return SshCluster.load(Path(reference["inventory"]))
