"""A tenant's cgroup on one storage node: paper 004's VNode, kept in sync by the agent.

The agent makes one `VNode` per tenant on its node, moves the tenant's brick processes
into it (again after a brick restarts with a new PID), throttles it on the brick disk
to the share the coordinator decided, and reads the bytes it moved from the cgroup's own
counters (`blkio.throttle.io_service_bytes`, or `io.stat` on cgroup v2).

The share is applied as a bytes/s limit on reads and on writes alike (and a tenant's
IOPS limit as an I/O/s one), and the tenant's priority as a BFQ weight on the brick
disk (`contio.middleware.disk_scheduler`): a tenant that both
reads and writes may move up to its share in each direction (paper 004's tenants read or
write, not both). Writes are only controlled when they reach the disk in the brick's
own context: bricks must write with O_DIRECT (docs/middleware.md).
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass
from pathlib import Path

from contio.errors import QosError
from contio.host.undo_journal import Entry
from contio.qos import controls
from contio.qos.device import BlockDevice
from contio.qos.hierarchy import Cgroup
from contio.qos.limits import IoLimits
from contio.qos.process_group import ProcessGroup
from contio.samplers.cgroup import parse_v1_io, parse_v2_io

PREFIX = "qos-"
"""Every VNode's cgroup is `<root>/contio/qos-<node>-<tenant>`: `contio cleanup` finds
what a killed agent left by this prefix."""
NAME_MAX = 64


@dataclass
class VNodeCounters:
    """Cumulative bytes and I/Os the tenant's bricks moved on the brick disk."""

    read_bytes: int
    write_bytes: int
    ios: int = 0

    @property
    def total(self) -> int:
        return self.read_bytes + self.write_bytes


class VNode:
    """One tenant's cgroup on one node, for one brick disk."""

    def __init__(self, group: ProcessGroup, device: BlockDevice):
        self.group = group
        self.device = device
        self.share_bps: float | None = None
        self.iops: float | None = None
        self.weight: int | None = None
        self._record: controls.AppliedControls | None = None

    @classmethod
    def create(cls, node: str, tenant: str, device: BlockDevice) -> VNode:
        return cls(ProcessGroup.create(cgroup_name(node, tenant)), device)

    def adopt(self, pids: list[int]) -> list[int]:
        """Move the tenant's brick processes in; returns those that were not in yet."""
        members = set(self.group.pids())
        moved = []
        for pid in pids:
            if pid in members:
                continue
            with contextlib.suppress(QosError):  # exited meanwhile: the next scan sees
                self.group.add(pid)
                moved.append(pid)
        return moved

    def counters(self) -> VNodeCounters:
        """Bytes moved on the brick disk since the cgroup was made."""
        path = self.group.cgroup.path
        if self.group.cgroup.version == "v1":
            io = parse_v1_io(
                (path / "blkio.throttle.io_service_bytes").read_text(),
                (path / "blkio.throttle.io_serviced").read_text(),
            )
        else:
            io = parse_v2_io((path / "io.stat").read_text())
        device = io.get(self.device.number)
        if device is None:
            return VNodeCounters(0, 0)
        ios = device.read_ops + device.write_ops
        return VNodeCounters(device.read_bytes, device.write_bytes, ios)

    def throttle(
        self, share_bps: float, iops: float | None = None, weight: int | None = None
    ) -> None:
        """Limit reads and writes on the brick disk to `share_bps` each, and to `iops`
        I/O per second each when the tenant has an IOPS limit; with `weight`, weigh the
        tenant's requests in the disk's BFQ queue.

        Each call applies the controls afresh. A weight selects BFQ when the disk runs
        another scheduler, and only the first call sees that: its record's replaced
        scheduler (and low_latency turned off) is carried into every later record, so
        `remove` restores the disk as it was before the VNode's first weight."""
        rate = max(1, int(share_bps))
        ios = None if iops is None else max(1, int(iops))
        limits = IoLimits(
            read_bps=rate, write_bps=rate, read_iops=ios, write_iops=ios, weight=weight
        )
        previous = self._record
        self._record = controls.apply(self.group.cgroup, self.device, limits)
        if previous is not None:
            if self._record.replaced_scheduler is None:
                self._record.replaced_scheduler = previous.replaced_scheduler
            self._record.disabled_low_latency |= previous.disabled_low_latency
        self.share_bps = share_bps
        self.iops = iops
        self.weight = weight

    def settings(self) -> dict[str, object] | None:
        """What is in force, for results: the control record (mechanism, values, notes)."""
        return None if self._record is None else self._record.as_dict()

    def remove(self) -> None:
        """Lift the throttle, give the bricks back to the root cgroup, delete the cgroup."""
        try:
            if self._record is not None:
                controls.remove(self._record)
        finally:
            self._record = None
            self.group.remove()


def cgroup_name(node: str, tenant: str) -> str:
    """The VNode's cgroup name: ASCII letters, digits, '.', '_' and '-' only, at most 64
    characters (ProcessGroup's rule). A longer name is cut and ends in a hash of the
    whole, so two tenants whose names share their first 50 characters get two cgroups."""
    full = f"{node}-{tenant}"
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "_" for c in full)
    name = f"{PREFIX}{safe}"
    if len(name) <= NAME_MAX and safe == full:
        return name
    digest = hashlib.sha256(full.encode()).hexdigest()[:10]
    return f"{name[: NAME_MAX - len(digest) - 1]}-{digest}"


def undo_vnode(entry: Entry) -> None:
    """Undo-journal action: remove a VNode a killed agent left. Deleting the cgroup takes
    its throttles with it; its brick processes go back to the root cgroup."""
    ProcessGroup(Cgroup(entry["version"], Path(entry["cgroup"])), Path(entry["root"])).remove()
