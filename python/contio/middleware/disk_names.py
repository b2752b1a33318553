"""How the coordinator names a node's brick disks: each disk is a node of its own there
(bandwidth is a disk's), the first named as the node, the others after it."""

from __future__ import annotations


def disk_node(node: str, disk: int) -> str:
    """The coordinator's name for a node's `disk`-th brick disk (1-based): `node1` for
    the first, as a node with one disk is named, `node1.d2` for the second."""
    return node if disk == 1 else f"{node}.d{disk}"


def node_of(disk_name: str) -> str:
    """The node a `disk_node` name belongs to (`node1.d2` → `node1`)."""
    return disk_name.partition(".d")[0]
