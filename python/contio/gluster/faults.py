"""Timed fault events for Gluster runs: stop node i at t seconds, restart it at t2.

Stop kills the node's glusterd and brick processes (a crash, not a clean shutdown), in
one of two ways (`mode`):

- `kill`: the node's network stays up, so its kernel resets the closed connections and
  clients give the node up at once. On a small machine whose nodes share the CPUs,
  throughput often *rises* while the node is down (one brick fewer to write to).
- `power-off`: the node drops off the network first, then its processes die. Clients
  hear nothing; each request to the node waits until `network.ping-timeout` (Gluster's
  default: 42 s) passes, then the node is given up — the stall a machine that loses
  power causes. Local clusters only (an SSH host cannot be cut off and brought back).

Restart starts glusterd again (and brings the node's network back), waits until every
peer sees it, runs `gluster volume start VOL force` so the node's bricks come back, then
waits (bounded) until `gluster volume heal VOL info` reports zero entries on every
connected brick. Times are seconds from the schedule's start; each record also carries
that start as UTC time (`schedule_started_at`), so the report can place the events on
the engine's time series, whose clock starts when the engine's phase does (a little
later: process start, target open).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contio.errors import ClusterError
from contio.gluster.cluster import GlusterCluster
from contio.gluster.node_access import wait_for_peers
from contio.gluster.volume import GlusterVolume
from contio.yaml_input import Integer, Number


class NodeStopEvent(BaseModel):
    """`{type: stop-node, node: 2, at: 10, restart_at: 30}` in a spec's `events` list."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    type: Literal["stop-node"] = "stop-node"
    node: Integer = Field(ge=1, le=64)
    at: Number = Field(ge=0)
    restart_at: Number
    heal_timeout: Number = Field(300.0, gt=0)
    mode: Literal["kill", "power-off"] = "kill"
    """How the node stops: its processes killed (`kill`), or cut off the network first
    (`power-off`: clients wait for `network.ping-timeout`)."""

    @model_validator(mode="after")
    def _order(self) -> NodeStopEvent:
        if self.restart_at <= self.at:
            raise ValueError(
                f"'restart_at' ({self.restart_at}) must be later than 'at' ({self.at})"
            )
        return self


@dataclass
class EventRecord:
    """What happened, in seconds since the schedule started (None: did not happen)."""

    event: NodeStopEvent
    stopped_at: float | None = None
    """When the node was down (its processes gone; with `power-off`, cut off before)."""
    restart_began_at: float | None = None
    """When bringing it back began: the outage is [stopped_at, restart_began_at]."""
    restarted_at: float | None = None
    """When its glusterd and bricks were running again (`volume start force` done)."""
    healed_at: float | None = None
    heal_seconds: float | None = None
    error: str | None = None
    schedule_started_at: str | None = None
    """UTC time (ISO 8601, milliseconds) of the schedule's t = 0."""

    def as_dict(self) -> dict[str, object]:
        """Plain fields for result files."""
        return {
            **self.event.model_dump(),
            "schedule_started_at": self.schedule_started_at,
            "stopped_at": self.stopped_at,
            "restart_began_at": self.restart_began_at,
            "restarted_at": self.restarted_at,
            "healed_at": self.healed_at,
            "heal_seconds": self.heal_seconds,
            "error": self.error,
        }


@dataclass
class FaultSchedule:
    """Runs node-stop events in a background thread against one volume."""

    cluster: GlusterCluster
    volume: GlusterVolume
    events: list[NodeStopEvent]
    records: list[EventRecord] = field(default_factory=list)
    _cancel: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _t0: float = 0.0

    def start(self) -> None:
        """Start the clock (t = 0) and the events."""
        nodes = len(self.cluster.nodes())
        local = self.cluster.reference().get("kind") == "local"
        for ev in self.events:
            if ev.node > nodes:
                raise ClusterError(f"event stops node {ev.node}; the cluster has {nodes} nodes")
            if ev.mode == "power-off" and not local:
                raise ClusterError(
                    "stop-node mode 'power-off' needs a local cluster (`contio cluster up`); "
                    "use mode 'kill' on SSH hosts"
                )
        self._t0 = time.monotonic()
        wall = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        self.records = [EventRecord(ev, schedule_started_at=wall) for ev in self.events]
        self._thread = threading.Thread(target=self._run, name="gluster-faults", daemon=True)
        self._thread.start()

    def elapsed(self) -> float:
        """Seconds since `start`."""
        return time.monotonic() - self._t0

    def _sleep_until(self, t: float) -> bool:
        # Returns False when cancelled; Event.wait keeps cancellation prompt.
        return not self._cancel.wait(max(0.0, t - self.elapsed()))

    def _run(self) -> None:
        for record in sorted(self.records, key=lambda r: r.event.at):
            try:
                self._play(record)
            except Exception as exc:  # noqa: BLE001 - reported through join()
                record.error = str(exc)

    def _play(self, record: EventRecord) -> None:
        ev = record.event
        if not self._sleep_until(ev.at):
            return
        self.cluster.stop_node(ev.node, isolate=ev.mode == "power-off")
        record.stopped_at = self.elapsed()
        # Restart even when cancelled: a run never ends with a node left down.
        self._sleep_until(ev.restart_at)
        record.restart_began_at = self.elapsed()
        self.cluster.start_node(ev.node)
        # `volume start force` is staged on every peer; after `power-off` the others
        # take seconds to notice the node's new glusterd.
        wait_for_peers(self.cluster.nodes(), timeout=ev.heal_timeout)
        self.volume.start(force=True)
        record.restarted_at = self.elapsed()
        record.heal_seconds = self.volume.wait_healed(timeout=ev.heal_timeout)
        record.healed_at = self.elapsed()

    def cancel(self) -> None:
        """Skip events not yet begun; a stopped node is still restarted."""
        self._cancel.set()

    def join(self, timeout: float | None = None) -> list[EventRecord]:
        """Wait for every event (and heal); raise `ClusterError` if one failed."""
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise ClusterError(f"fault events still running after {timeout} s")
        failed = [r for r in self.records if r.error]
        if failed:
            raise ClusterError("; ".join(f"node {r.event.node}: {r.error}" for r in failed))
        return self.records
