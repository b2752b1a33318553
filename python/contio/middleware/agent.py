"""The node agent (`contio qos agent`): VNode Sync on one storage node.

One `NodeAgent` controls one brick disk; a node with several runs one per disk in the
same process (`run_agents`), each reporting to the coordinator as a node of its own
(`node1`, `node1.d2`, …): bandwidth is a disk's, and a tenant's bricks on two disks are
two processes, each in the VNode of its disk. Every interval each agent

1. finds the node's brick processes and moves each tenant's into its VNode (a restarted
   brick has a new PID and is moved again at the next interval);
2. reads what every VNode moved on the brick disk since the last interval, and what the
   disk moved and how busy it was (`/proc/diskstats`);
3. reports those rates to the coordinator, which answers with the node's shares and
   the tenants' weights (their priorities);
4. throttles every VNode to its share and weighs it in the disk's BFQ queue (the agent
   selects BFQ on its disk once, `contio.middleware.disk_scheduler`, and restores the
   disk's scheduler on stop).

Between intervals it looks every WAKE_CHECK_S at the VNodes of tenants that were idle:
one that moves again is reported at once (a tenant coming back has its share within a
tenth of a second of its first I/O plus a round trip, not up to an interval later).

When the coordinator does not answer, the agent keeps the shares it last had
(fail-static) and goes on measuring; when it answers again, the next report re-syncs.
On stop it removes every throttle and cgroup it made. While it runs it holds the owner
lock of its workdir (`<state>/qos-agents/<node>/`), whose undo journal lists every VNode
made, so `contio cleanup` (and `contio qos down`, `contio qos stop-agent`) removes what a
killed agent left (`contio.middleware.lost_agents`); a clean stop removes the workdir.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from contio.errors import MiddlewareError, QosConfigError, QosError
from contio.host.owner_lock import OwnerLock
from contio.host.state_dir import state_root
from contio.host.undo_journal import Entry, UndoJournal
from contio.middleware import disk_scheduler
from contio.middleware.bricks import BrickProcess, brick_processes
from contio.middleware.coordinator import DiskReport
from contio.middleware.http_api import CoordinatorClient
from contio.middleware.vnode import VNode, VNodeCounters
from contio.qos.device import BlockDevice, resolve
from contio.samplers.host import PROC, DiskCounters, read_diskstats

log = logging.getLogger(__name__)

WAKE_CHECK_S = 0.1
"""How often, between intervals, the agent looks for an idle tenant that moves again."""
RETHROTTLE_FRACTION = 0.01
"""A share that moved by less than this fraction is not written again."""


@dataclass
class AgentConfig:
    """What one node's agent needs: who it is, where the coordinator is, which disk."""

    node: str
    """The node's name as the coordinator lists it."""
    address: str
    """The node's address: its bricks are started with `-s ADDRESS`."""
    device: BlockDevice
    """The brick disk, shared by every tenant's bricks on this node."""
    capacity_bps: float
    coordinator_url: str
    secret: str
    interval: float = 0.5
    volumes: dict[str, str] = field(default_factory=dict)
    """Tenant → volume, where a tenant's volume is not named after it."""
    workdir: Path | None = None
    """Default: `<state root>/qos-agents/<node>`."""
    siblings: tuple[BlockDevice, ...] = ()
    """The node's other brick disks, which agents of their own control (`run_agents`):
    bricks there are theirs, not I/O that escapes."""

    def __post_init__(self) -> None:
        if not self.capacity_bps > 0:
            raise QosConfigError("capacity", f"must be positive, not {self.capacity_bps!r}")
        if not 0 < self.interval <= 1.0:
            raise QosConfigError("interval", f"must be > 0 and ≤ 1 s, not {self.interval!r}")


class _Reading(NamedTuple):
    """The counters one interval ended with: the next one's rates are measured from it."""

    at: float
    vnodes: dict[str, VNodeCounters]
    disk: DiskCounters | None


@dataclass
class StepResult:
    """What one interval did, for logs and tests."""

    used_bps: dict[str, float]
    shares_bps: dict[str, float]
    coordinator_reached: bool
    adopted: dict[str, list[int]]


class NodeAgent:
    """The VNodes of one node, kept in sync with the coordinator."""

    def __init__(
        self,
        config: AgentConfig,
        client: CoordinatorClient | None = None,
        bricks: Callable[[str], list[BrickProcess]] = brick_processes,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.config = config
        self.client = client or CoordinatorClient(config.coordinator_url, config.secret)
        self.vnodes: dict[str, VNode] = {}
        self.shares: dict[str, float] = {}
        self.iops_limits: dict[str, float] = {}
        """Tenants' IOPS limits, written into the kernel's throttle with their shares."""
        self.weights: dict[str, int] = {}
        """Tenants' BFQ weights on the disk, from their priorities (empty: none sent)."""
        self.weights_unavailable: str | None = None
        """Why the disk cannot weigh tenants (no BFQ): then throttles only, logged once."""
        self._scheduler_entry: Entry | None = None
        self.reached = False
        self._bricks = bricks
        self._clock = clock
        self._last: _Reading | None = None
        self._last_used: dict[str, float] = {}
        self.disk: DiskReport | None = None
        """What the brick disk did in the last interval (None before the second)."""
        self.workdir = config.workdir or agents_root() / config.node
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._lock = OwnerLock(self.workdir, "qos-agent")
        self._lock.acquire()
        self._journal = UndoJournal(self.workdir / "journal.json")
        self._entries: dict[str, Entry] = {}
        self._brick_disks: dict[int, bool] = {}
        self.uncontrolled: set[str] = set()
        """Bricks found on another disk than the controlled one (`volume:path`)."""

    def step(self) -> StepResult:
        """One control interval: sync VNodes, measure, report, apply."""
        by_volume = self._controlled_bricks()  # one /proc scan per interval
        adopted = self._sync_vnodes(by_volume)
        used, ios = self._measure()
        self._last_used = used
        try:
            answer = self.client.report(
                self.config.node, self.config.capacity_bps, used, self.disk, ios
            )
        except MiddlewareError as exc:  # fail-static: keep the shares in force
            if self.reached:
                log.warning("coordinator unreachable, keeping the last shares: %s", exc)
            self.reached = False
            return StepResult(used, dict(self.shares), False, adopted)
        self.reached = True
        self.shares = {t: float(bps) for t, bps in answer["shares_bps"].items()}
        self.iops_limits = {t: float(n) for t, n in (answer.get("limits_iops") or {}).items()}
        self.weights = {t: int(w) for t, w in (answer.get("weights") or {}).items()}
        self._drop_removed_tenants()
        self._sync_vnodes(by_volume)  # tenants the coordinator just told us about
        self._apply()
        return StepResult(used, dict(self.shares), True, adopted)

    def _volume(self, tenant: str) -> str:
        return self.config.volumes.get(tenant, tenant)

    def _controlled_bricks(self) -> dict[str, list[int]]:
        """The node's brick processes on the controlled disk, by volume."""
        by_volume: dict[str, list[int]] = {}
        bricks = self._bricks(self.config.address)
        running = {brick.pid for brick in bricks}
        self._brick_disks = {pid: on for pid, on in self._brick_disks.items() if pid in running}
        for brick in bricks:
            if self._on_controlled_disk(brick):
                by_volume.setdefault(brick.volume, []).append(brick.pid)
        return by_volume

    def _sync_vnodes(self, by_volume: dict[str, list[int]]) -> dict[str, list[int]]:
        """Make the VNodes of tenants with bricks here and move their bricks in."""
        adopted = {}
        for tenant in self.shares:
            pids = by_volume.get(self._volume(tenant))
            if not pids:
                continue  # no brick of this tenant on this node (yet)
            if tenant not in self.vnodes:
                self._make_vnode(tenant)
            moved = self.vnodes[tenant].adopt(pids)
            if moved:
                adopted[tenant] = moved
        return adopted

    def _on_controlled_disk(self, brick: BrickProcess) -> bool:
        """Whether `brick` is on the disk this agent controls; warns once when it is on
        none of the node's controlled disks (its I/O would escape the throttle)."""
        known = self._brick_disks.get(brick.pid)
        if known is None:
            try:
                disk = resolve(brick.brick)
            except QosError:
                disk = self.config.device  # cannot tell (another mount namespace): keep it
            known = disk == self.config.device
            self._brick_disks[brick.pid] = known
            if not known and disk not in self.config.siblings:
                log.warning(
                    "brick %s of volume %s is not on %s: its I/O is not controlled",
                    brick.brick, brick.volume, self.config.device.name,
                )  # fmt: skip
                self.uncontrolled.add(f"{brick.volume}:{brick.brick}")
        return known

    def _make_vnode(self, tenant: str) -> None:
        vnode = VNode.create(self.config.node, tenant, self.config.device)
        self.vnodes[tenant] = vnode
        cgroup = vnode.group.cgroup
        self._entries[tenant] = self._journal.record(
            "qos-vnode", cgroup=str(cgroup.path), version=cgroup.version, root=str(vnode.group.root)
        )

    def _remove_vnode(self, tenant: str) -> None:
        self.vnodes.pop(tenant).remove()
        self._journal.undo(self._entries.pop(tenant))  # already gone: forgets the entry

    def _measure(self) -> tuple[dict[str, float], dict[str, float]]:
        """Each tenant's bytes/s and I/O/s since the last interval (zeros at the first)."""
        now = self._clock()
        counters = {tenant: vnode.counters() for tenant, vnode in self.vnodes.items()}
        disk = self._disk_counters()
        last, self._last = self._last, _Reading(now, counters, disk)
        if last is None:
            return {t: 0.0 for t in counters}, {t: 0.0 for t in counters}
        seconds = max(now - last.at, 1e-3)
        self.disk = _disk_report(last.disk, disk, seconds)
        before = {t: last.vnodes.get(t, c) for t, c in counters.items()}  # new: nothing yet
        used = {t: max(0, c.total - before[t].total) / seconds for t, c in counters.items()}
        ios = {t: max(0, c.ios - before[t].ios) / seconds for t, c in counters.items()}
        return used, ios

    def _disk_counters(self) -> DiskCounters | None:
        try:
            return read_diskstats((PROC / "diskstats").read_text()).get(self.config.device.name)
        except OSError:
            return None

    def _apply(self) -> None:
        weigh = bool(self.weights and self.vnodes) and self._weighing()
        for tenant, vnode in self.vnodes.items():
            share = self.shares.get(tenant)
            if share is None:
                continue
            old, iops = vnode.share_bps, self.iops_limits.get(tenant)
            weight = self.weights.get(tenant) if weigh else None
            moved = old is None or abs(share - old) > RETHROTTLE_FRACTION * max(old, 1.0)
            if moved or iops != vnode.iops or weight != vnode.weight:
                vnode.throttle(share, iops, weight)

    def _weighing(self) -> bool:
        """Whether the disk runs BFQ for the VNodes' weights; selects it the first time
        (journaled first, so a killed agent's disk gets its scheduler back too)."""
        if self._scheduler_entry is not None:
            return True
        if self.weights_unavailable is not None:
            return False
        cgroup_version = next(iter(self.vnodes.values())).group.cgroup.version
        why = disk_scheduler.unavailable(cgroup_version, self.config.device)
        if why is not None:
            self.weights_unavailable = why
            log.warning("%s: tenants are throttled but not weighed: %s", self.config.node, why)
            return False
        fields = disk_scheduler.original(self.config.device)
        self._scheduler_entry = self._journal.record("qos-scheduler", **fields)
        disk_scheduler.select_bfq(self.config.device)
        return True

    def _drop_removed_tenants(self) -> None:
        for tenant in [t for t in self.vnodes if t not in self.shares]:
            self._remove_vnode(tenant)

    def settings(self) -> dict[str, Any]:
        """The shares in force on this node and how they are applied, for results."""
        return {
            "node": self.config.node,
            "coordinator_reached": self.reached,
            "weights": self.weights_unavailable or "BFQ, low_latency off",
            "vnodes": {t: {"share_bps": v.share_bps, "iops_limit": v.iops, "weight": v.weight,
                           "cgroup": str(v.group.cgroup.path),
                           "controls": v.settings()}
                       for t, v in self.vnodes.items()},
        }  # fmt: skip

    def run(self, stop: Callable[[], bool]) -> None:
        """Step every interval until `stop()` is true; then remove everything made."""
        run_agents([self], stop)

    def idle_tenant_moved(self) -> bool:
        """Whether a tenant that moved nothing in the last interval has moved since."""
        if self._last is None:
            return False
        for tenant, rate in self._last_used.items():
            before = self._last.vnodes.get(tenant)
            vnode = self.vnodes.get(tenant)
            if rate != 0.0 or before is None or vnode is None:
                continue
            if vnode.counters().total > before.total:
                return True
        return False

    def close(self) -> None:
        """Remove every throttle and cgroup this agent made; then release its workdir."""
        errors = []
        for tenant in list(self.vnodes):
            try:
                self._remove_vnode(tenant)
            except Exception as exc:  # noqa: BLE001 - remove the rest, report all
                errors.append(f"{tenant}: {exc}")
        if self._scheduler_entry is not None:  # after the VNodes: their weights are BFQ's
            try:
                self._journal.undo(self._scheduler_entry)
                self._scheduler_entry = None
            except Exception as exc:  # noqa: BLE001 - reported with the rest
                errors.append(f"scheduler of {self.config.device.name}: {exc}")
        if errors:
            raise MiddlewareError("the agent could not remove: " + "; ".join(errors))
        self._lock.release()
        # Its journal went with its last entry: an empty folder is nothing to clean up.
        with contextlib.suppress(OSError):
            self.workdir.rmdir()


def run_agents(agents: Sequence[NodeAgent], stop: Callable[[], bool]) -> None:
    """Step a node's agents (one per brick disk) every interval until `stop()` is true;
    then close them all.

    A failed interval (a brick that exited while it was moved, a cgroup file that refused
    a write) is logged and the next one tries again: the service stays up, and with it
    the shares in force. Between intervals, a tenant that was idle on any disk and moves
    again starts the next interval at once, so it has its share back without waiting."""
    if not agents:
        return
    clock, interval = agents[0]._clock, agents[0].config.interval
    try:
        while not stop():
            started = clock()
            for agent in agents:
                try:
                    agent.step()
                except (OSError, QosError) as exc:
                    log.warning("%s: interval failed, trying again at the next: %s",
                                agent.config.node, exc)  # fmt: skip
            deadline = started + interval
            while not stop() and (left := deadline - clock()) > 0:
                time.sleep(min(WAKE_CHECK_S, left))
                if any(agent.idle_tenant_moved() for agent in agents):
                    break
    finally:
        errors = []
        for agent in agents:
            try:
                agent.close()
            except MiddlewareError as exc:
                errors.append(str(exc))
        if errors:
            raise MiddlewareError("; ".join(errors))


def _disk_report(
    before: DiskCounters | None, after: DiskCounters | None, seconds: float
) -> DiskReport | None:
    """How busy the disk was and what it moved between two readings; None when either
    is missing (then the coordinator divides the calibrated capacity)."""
    if before is None or after is None:
        return None
    busy = (after.busy_ms - before.busy_ms) / 1000 / seconds
    moved = after.read_bytes + after.write_bytes - before.read_bytes - before.write_bytes
    return DiskReport(min(1.0, max(0.0, busy)), max(0, moved) / seconds)


def agents_root() -> Path:
    """Where node agents keep their workdirs (owner lock and undo journal)."""
    return state_root() / "qos-agents"
