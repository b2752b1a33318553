"""GlusterFS volume types and their counts: validation, brick placement, `volume create` args.

The five types of paper 000 (docs/papers.md), section 3.1.1. Replica and disperse
sets are made of consecutive bricks in `volume create`, so bricks are listed disk-major
across nodes: every set then lands on distinct nodes and survives one node's loss.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

VolumeType = Literal[
    "distributed", "replicated", "distributed-replicated", "dispersed", "distributed-dispersed"
]
REPLICATED = ("replicated", "distributed-replicated")
DISPERSED = ("dispersed", "distributed-dispersed")


class VolumeLayout(BaseModel):
    """A volume type with its counts; missing counts take the defaults named below."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    volume_type: VolumeType = "dispersed"
    bricks: int | None = Field(None, ge=1, le=256)
    replica: int | None = Field(None, ge=2, le=16)
    disperse: int | None = Field(None, ge=3, le=64)
    redundancy: int | None = Field(None, ge=1, le=31)

    @model_validator(mode="after")
    def _counts(self) -> VolumeLayout:
        vt = self.volume_type
        if vt not in REPLICATED and self.replica is not None:
            raise ValueError(f"'replica' applies to replicated types only, not '{vt}'")
        if vt not in DISPERSED and (self.disperse is not None or self.redundancy is not None):
            raise ValueError(
                f"'disperse' and 'redundancy' apply to dispersed types only, not '{vt}'"
            )
        if vt in DISPERSED:
            disperse, redundancy = self.set_size, self.redundancy_count
            if not 2 * redundancy < disperse:
                raise ValueError(
                    f"'redundancy' ({redundancy}) must be less than half of 'disperse' ({disperse})"
                )
        if self.bricks is not None:
            _check_brick_count(vt, self.bricks, self.set_size)
        return self

    @property
    def set_size(self) -> int:
        """Bricks per replica or disperse set (1 for distributed)."""
        if self.volume_type in REPLICATED:
            return self.replica or 3
        if self.volume_type in DISPERSED:
            return self.disperse or 3
        return 1

    @property
    def redundancy_count(self) -> int:
        """Bricks of a disperse set that may be lost (default: 1)."""
        return self.redundancy or 1

    def brick_count(self, nodes: int) -> int:
        """The number of bricks: as given, else one per node (distributed), one set, or two."""
        if self.bricks is not None:
            return self.bricks
        if self.volume_type == "distributed":
            return nodes
        if self.volume_type in ("replicated", "dispersed"):
            return self.set_size
        return 2 * self.set_size

    def create_args(self, volume: str, bricks: Sequence[str], force: bool = False) -> list[str]:
        """`gluster volume create` arguments (without the leading `gluster`)."""
        args = ["volume", "create", volume]
        if self.volume_type in REPLICATED:
            args += ["replica", str(self.set_size)]
        elif self.volume_type in DISPERSED:
            args += ["disperse", str(self.set_size), "redundancy", str(self.redundancy_count)]
        args += ["transport", "tcp", *bricks]
        return [*args, "force"] if force else args


def _check_brick_count(volume_type: str, bricks: int, set_size: int) -> None:
    if volume_type in ("replicated", "dispersed") and bricks != set_size:
        name = "replica" if volume_type == "replicated" else "disperse"
        raise ValueError(
            f"'bricks' ({bricks}) must equal '{name}' ({set_size}) for '{volume_type}'"
        )
    if volume_type.startswith("distributed-") and (bricks % set_size or bricks < 2 * set_size):
        name = "replica" if volume_type in REPLICATED else "disperse"
        raise ValueError(
            f"'bricks' ({bricks}) must be a multiple of '{name}' ({set_size}) and at least "
            f"{2 * set_size} for '{volume_type}'"
        )


@dataclass(frozen=True)
class BrickSlot:
    """A place a brick can go: a node (by index in the node list) and a directory on XFS."""

    node: int
    root: str


def place_bricks(
    slots_per_node: Sequence[Sequence[str]], count: int, set_size: int
) -> list[BrickSlot]:
    """Choose `count` brick slots, disk-major across nodes, so each set spans distinct nodes.

    Raises ValueError naming the shortfall when the cluster is too small.
    """
    nodes = len(slots_per_node)
    if set_size > nodes:
        raise ValueError(
            f"a set of {set_size} bricks needs {set_size} nodes to survive a node loss; "
            f"the cluster has {nodes}"
        )
    depth = max((len(s) for s in slots_per_node), default=0)
    ordered = [
        BrickSlot(node, slots_per_node[node][disk])
        for disk in range(depth)
        for node in range(nodes)
        if disk < len(slots_per_node[node])
    ]
    if count > len(ordered):
        raise ValueError(f"{count} bricks requested; the cluster has {len(ordered)} brick disks")
    return ordered[:count]
