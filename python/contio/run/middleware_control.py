"""`io_controls` levels with `middleware`: paper 004's I/O middleware in a run.

A level's groups are tenants of the Gluster backend's cluster; each tenant's containers
keep their data on the tenant's own volume (`volume_per_tenant`), so every brick process
serves one tenant and the node agents can put it in the tenant's VNode
(docs/middleware.md). For such a cell the runner uses a `MiddlewareIoController`:

- before each phase, `use(level)` brings `contio qos` up on the cluster (the first time;
  the run takes it down at the end unless it was up already), sets the level's policy and
  tenants (removing the previous level's), and waits until every node's agent has applied
  them: two reports after the change, the second begun after the first one's throttles
  were written. Load phases run with no tenant set (`use(None)`), so laying out data is
  not throttled;
- `prepare` returns what each container's row records as its `io_control`: mechanism,
  policy, tenant, volume, settings, each node's capacity, the shares in force when the
  phase began and the fair share (Algorithm 1 with every tenant of the level active);
- during a run phase, `sample_to(directory)` appends every node report's per-tenant share and
  measured rate to a JSON-lines file (the report's stacked timeline and achieved-versus-
  target figure), and `moves` are the moments shares changed;
- the engines themselves are plain processes: what is controlled is the bricks.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from contio.backends.gluster import GlusterBackend
from contio.backends.interface import StorageBackend
from contio.errors import MiddlewareError
from contio.experiment.parts import IoControlSet, IoGroupControls
from contio.gluster.local_cluster import LocalCluster
from contio.middleware import deployment
from contio.qos.policy import TenantShare, static_shares
from contio.results.folder import MIDDLEWARE_MOVES_JSON, MIDDLEWARE_SAMPLES_JSONL

MECHANISM = (
    "I/O middleware (paper 004): per-tenant VNodes of the bricks on every storage node, "
    "cgroup-v1 blkio.throttle, O_DIRECT through to the bricks"
)
SYNC_TIMEOUT = 15.0
"""How long `use` waits for the agents to apply a change (several intervals)."""


class MiddlewareIoController:
    """The middleware on one Gluster backend's cluster, driven cell by cell."""

    mechanism = MECHANISM

    def __init__(self, backend: StorageBackend):
        self.backend = backend
        self._deployment: deployment.Deployment | None = None
        self._started_here = False
        self._level: IoControlSet | None = None
        self._tenants: dict[str, str] = {}
        """Spec tenant → middleware tenant (its volume's name), as set now."""
        self._in_force: dict[str, dict[str, float | None]] = {}
        self._sampler: _StatusSampler | None = None

    # The IoController protocol.

    def unavailable_reason(self, controls: IoControlSet, device: str | None = None) -> str | None:
        """None when the middleware can run on this backend here."""
        if controls.middleware is None:
            return "io_controls: this level has no middleware"
        backend = self.backend
        if not isinstance(backend, GlusterBackend) or not backend.options.volume_per_tenant:
            return (
                "io_controls.middleware: needs a gluster backend with volume_per_tenant: true "
                "(each tenant's bricks in processes of their own)"
            )
        if backend.options.inventory is not None:
            return "io_controls.middleware: runs on the one-machine cluster only (no inventory)"
        if os.geteuid() != 0:
            return "io_controls.middleware: the node agents write cgroup files: run as root"
        return None

    def prepare(
        self, group: IoGroupControls, device: str | None, position: int = 1
    ) -> dict[str, Any]:
        """What container `position`'s row records (its tenant's settings and shares)."""
        level = self._level
        if level is None or level.middleware is None:
            return {"mechanism": self.mechanism, "tenant": None,
                    "notes": ["no tenant set in this phase: loads are not throttled"]}  # fmt: skip
        spec_tenant = level.tenant_of(position - 1)
        name = self._tenants[spec_tenant]
        dep = self._require_deployment()
        return {
            "mechanism": self.mechanism,
            "policy": level.middleware.policy,
            "tenant": spec_tenant,
            "volume": name,
            "priority": group.priority,
            "reservation_bps": group.reservation,
            "limit_bps": group.limit,
            "capacity_bps": dep.capacity_bps,
            "fair_share_bps": self._fair_shares(level, dep.capacity_bps)[spec_tenant],
            "in_force_bps": {node: shares.get(name) for node, shares in self._in_force.items()},
            "coordinator": dep.url,
        }

    def popen(self, position: int, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen:
        """The engine as a plain process: the middleware controls the bricks it reads."""
        return subprocess.Popen(argv, **kwargs)

    def release(self) -> None:
        """Remove the tenants this run set; take the middleware down if the run brought it up."""
        self.stop_sampling()
        if self._deployment is None:
            return
        try:
            with contextlib.suppress(MiddlewareError):
                self._set_tenants(None)
        finally:
            if self._started_here:
                deployment.down(self._cluster_name())
            self._deployment, self._started_here = None, False

    # What the runner adds around each phase.

    def use(self, level: IoControlSet | None) -> None:
        """Make `level`'s policy and tenants the ones in force on every node (None: no
        tenant, nothing throttled), and wait until the agents applied them."""
        if level is not None and level.middleware is None:
            raise MiddlewareError("use(level): the level has no middleware")
        if level is None and self._deployment is None:
            return  # nothing was ever set: nothing to lift
        if self._deployment is not None and level == self._level:
            return  # in force already (the same cell's next repetition, or loads in a row)
        dep = self._require_deployment(level)
        if level is not None:
            dep.client.set_policy(level.middleware.policy)  # type: ignore[union-attr]
        self._set_tenants(level)
        self._level = level
        self._wait_for_agents(dep)

    def sample_to(self, directory: Path) -> None:
        """Append every node report to `directory`'s samples file until `stop_sampling`
        (one per interval); the share moves go beside it then."""
        self.stop_sampling()
        dep = self._require_deployment()
        self._sampler = _StatusSampler(dep, dict(self._tenants), directory)
        self._sampler.start()

    def stop_sampling(self) -> None:
        """Stop the sampler (its last line written) and save the share moves beside it."""
        sampler, self._sampler = self._sampler, None
        if sampler is not None:
            sampler.stop()

    # Internals.

    def _cluster_name(self) -> str:
        assert isinstance(self.backend, GlusterBackend)
        return self.backend.options.cluster

    def _require_deployment(self, level: IoControlSet | None = None) -> deployment.Deployment:
        if self._deployment is not None:
            return self._deployment
        name = self._cluster_name()
        if not LocalCluster.exists(name):
            raise MiddlewareError(f"cluster '{name}' is not up: provision the backend first")
        try:
            self._deployment = deployment.Deployment.load(name)
        except MiddlewareError:
            middleware = level.middleware if level is not None else None
            policy = middleware.policy if middleware is not None else "static"
            capacity = middleware.capacity if middleware is not None else None
            self._deployment = deployment.up(name, policy, capacity)
            self._started_here = True
        return self._deployment

    def _set_tenants(self, level: IoControlSet | None) -> None:
        """Remove the tenants set before that `level` does not have, then set its own."""
        dep = self._require_deployment()
        assert isinstance(self.backend, GlusterBackend)
        wanted = {} if level is None else level.tenants()
        names = {t: self.backend.tenant_volume(t) for t in wanted}
        for spec_tenant, name in list(self._tenants.items()):
            if spec_tenant not in wanted:
                dep.client.remove_tenant(name)
                del self._tenants[spec_tenant]
        for spec_tenant, group in wanted.items():
            assert group.priority is not None  # checked by the spec model
            dep.client.set_tenant(
                names[spec_tenant], group.priority, group.reservation, group.limit
            )
            self._tenants[spec_tenant] = names[spec_tenant]

    def _wait_for_agents(self, dep: deployment.Deployment) -> None:
        """Two reports from every node after now: the first carries the change to the
        agent, which applies it before it measures and sends the second."""
        deadline = time.monotonic() + SYNC_TIMEOUT
        for _ in range(2):
            since = time.time()
            while True:
                status = dep.client.status()
                nodes = status["nodes"]
                behind = [
                    n
                    for n in dep.agents
                    if n not in nodes or _report_time(nodes[n]) <= since or nodes[n]["stale"]
                ]
                if not behind:
                    break
                if time.monotonic() > deadline:
                    raise MiddlewareError(
                        f"the agents of {', '.join(behind)} did not apply the new shares within "
                        f"{SYNC_TIMEOUT:g} s (logs in {dep.directory})"
                    )
                time.sleep(0.1)
        self._in_force = {
            node: {t: share["target_bps"] for t, share in info["tenants"].items()}
            for node, info in nodes.items()
        }

    @staticmethod
    def _fair_shares(level: IoControlSet, capacity: dict[str, float]) -> dict[str, float]:
        """Each tenant's share of the smallest node with every tenant of the level active."""
        tenants = {
            name: TenantShare(name, g.priority or 1, float(g.reservation or 0),
                              None if g.limit is None else float(g.limit))
            for name, g in level.tenants().items()
        }  # fmt: skip
        return static_shares(min(capacity.values()), tenants, set(tenants))


def _report_time(node: dict[str, Any]) -> float:
    return time.time() - float(node["last_report_age_s"])


class _StatusSampler:
    """Polls the coordinator's status and writes each new node report's per-tenant share
    and measured rate: {"t", "node", "tenant", "target_bps", "measured_bps"}."""

    def __init__(self, dep: deployment.Deployment, tenants: dict[str, str], directory: Path):
        self._client = dep.client
        self._tenants = {name: spec for spec, name in tenants.items()}
        self._path = directory / MIDDLEWARE_SAMPLES_JSONL
        self._moves = directory / MIDDLEWARE_MOVES_JSON
        self._interval = 0.25
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="middleware-sampler", daemon=True)
        self._seen: dict[str, float] = {}
        self.started = time.time()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        with contextlib.suppress(MiddlewareError):
            moves = [m for m in self._client.moves(self.started) if m["tenant"] in self._tenants]
            # Seconds since sampling began, as the samples' `t`.
            placed = [
                {
                    **m,
                    "t": round(float(m["at"]) - self.started, 3),
                    "tenant": self._tenants[m["tenant"]],
                }
                for m in moves
            ]
            self._moves.write_text(json.dumps(placed, indent=1))

    def _loop(self) -> None:
        with self._path.open("a") as out:
            while not self._stop.wait(self._interval):
                with contextlib.suppress(MiddlewareError):
                    for line in self._new_reports():
                        out.write(json.dumps(line) + "\n")
                    out.flush()

    def _new_reports(self) -> Iterator[dict[str, Any]]:
        for node, info in self._client.status()["nodes"].items():
            at = round(_report_time(info), 3)
            if at - self._seen.get(node, 0.0) < 0.05:
                continue  # the same report as last time
            self._seen[node] = at
            for name, share in info["tenants"].items():
                if name in self._tenants:
                    yield {
                        "t": round(at - self.started, 3),
                        "node": node,
                        "tenant": self._tenants[name],
                        "target_bps": share["target_bps"],
                        "measured_bps": share["measured_bps"],
                    }
