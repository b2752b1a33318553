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

A run starts from a coordinator holding only its own tenants: those found there are set
aside for the run and put back at its end (`contio.run.middleware_tenants`; the run's
output says so). A coordinator or agent that dies fails only the cells that need it
(`MiddlewareLost`, a `CellFailed`): the cell whose run phase it died in, with the reason.
When the run brought the middleware up, it then stops what is left of it, removes what
the dead agent left (its VNodes, the BFQ scheduler it selected) and starts it again for
the next cells; when it was up before the run, every later cell that needs it fails,
saying to run `contio qos down` (which removes the dead agent's leftovers) and `up`.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from contio.backends.gluster import GlusterBackend
from contio.backends.interface import StorageBackend
from contio.errors import MiddlewareError, MiddlewareLost, MiddlewareNotUp, QosConfigError
from contio.gluster.local_cluster import LocalCluster
from contio.host.waiting import poll_until
from contio.middleware import deployment
from contio.qos.control_spec import IoControlSet, IoGroupControls
from contio.qos.policy import TenantShare, static_shares
from contio.run.middleware_samples import StatusSampler, report_time
from contio.run.middleware_tenants import SetAsideTenants

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
        self._sampler: StatusSampler | None = None
        self._set_aside: SetAsideTenants | None = None
        """The tenants found in the coordinator, put back at `release` (None: not looked)."""

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
        """Remove the tenants this run set; take the middleware down if the run brought it
        up; put back the tenants set aside."""
        self.stop_sampling()
        dep, self._deployment = self._deployment, None
        started, self._started_here = self._started_here, False
        try:
            if dep is not None:
                with contextlib.suppress(MiddlewareError, QosConfigError):
                    self._set_tenants(dep, None)
        finally:
            try:
                if started:
                    for note in deployment.down(self._cluster_name()).notes:
                        _say(note)
            finally:
                self._put_back(None if started else dep)

    def _put_back(self, running: deployment.Deployment | None) -> None:
        """The tenants set aside, back through `running`'s API, or into the stopped
        coordinator's file."""
        aside, self._set_aside = self._set_aside, None
        if aside is None:
            return
        names = ", ".join(sorted(aside.tenants))
        if running is not None:
            problems = aside.back_to_coordinator(running.client)
        else:
            problems = aside.back_to_store(self._store_file())
        if problems:
            _say(f"{self._where()}: tenants set aside not all put back: " + "; ".join(problems))
        elif names:
            _say(f"{self._where()}: tenants {names} put back")

    # What the runner adds around each phase.

    def use(self, level: IoControlSet | None) -> None:
        """Make `level`'s policy and tenants the ones in force on every node (None: no
        tenant, nothing throttled), and wait until the agents applied them.
        `MiddlewareLost` (the cell fails) when the middleware cannot be had."""
        if level is not None and level.middleware is None:
            raise MiddlewareError("use(level): the level has no middleware")
        if level is None and self._deployment is None:
            return  # nothing was ever set: nothing to lift
        try:
            self._restart_if_lost()
            if self._deployment is not None and level == self._level:
                return  # in force already (the same cell's next repetition, or loads in a row)
            dep = self._require_deployment(level)
            self._restart_if_lost()  # one up before the run may have lost a service since
            if level is not None:
                dep.client.set_policy(level.middleware.policy)  # type: ignore[union-attr]
            self._set_tenants(dep, level)
            self._level = level
            self._wait_for_agents(dep)
        except MiddlewareLost:
            raise
        except MiddlewareError as exc:
            raise MiddlewareLost(f"{self._where()} failed: {exc}") from None

    def check_held(self) -> None:
        """After a run phase: `MiddlewareLost` when its coordinator or an agent died
        during it (the tenants' shares were not kept in sync)."""
        dep = self._deployment
        problem = None if dep is None else _lost(dep)
        if problem is None:
            return
        raise MiddlewareLost(
            f"{self._where()} was lost during the run phase: {problem}, so the tenants' "
            f"shares were not kept; {self._what_now(problem)}"
        )

    def sample_to(self, directory: Path) -> None:
        """Append every node report to `directory`'s samples file until `stop_sampling`
        (one per interval); the share moves go beside it then."""
        self.stop_sampling()
        dep = self._require_deployment()
        self._sampler = StatusSampler(dep, dict(self._tenants), directory)
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

    def _where(self) -> str:
        return f"the I/O middleware on cluster '{self._cluster_name()}'"

    def _store_file(self) -> Path:
        return deployment.middleware_root(self._cluster_name()) / deployment.STORE_FILE

    def _what_now(self, problem: str) -> str:
        """What follows a loss: the run's own restart, or what the user must run."""
        if self._started_here:
            return ("the run stops the rest of it, removes what the dead service left and "
                    "starts it again for its next cells")  # fmt: skip
        name = self._cluster_name()
        left = ("its VNodes and the BFQ scheduler it selected stay on the node"
                if "agent" in problem else "the agents keep their last shares")  # fmt: skip
        return (f"{left} until `contio qos down --cluster {name}` (which removes them); "
                f"`contio qos up --cluster {name}` starts it again, and `contio run "
                "--resume` reruns the failed cells")  # fmt: skip

    def _restart_if_lost(self) -> None:
        """A middleware this run brought up whose coordinator or agent died: stop the
        rest, remove what was left, forget it (the next `_require_deployment` starts it
        again). One that was up before the run: `MiddlewareLost`, for every cell."""
        dep = self._deployment
        problem = None if dep is None else _lost(dep)
        if problem is None:
            return
        if not self._started_here:
            raise MiddlewareLost(f"{self._where()}: {problem}; {self._what_now(problem)}")
        _say(f"{self._where()}: {problem}; the run starts it again")
        for note in deployment.down(self._cluster_name()).notes:
            _say(note)
        self._deployment, self._level, self._in_force = None, None, {}
        self._started_here = False

    def _require_deployment(self, level: IoControlSet | None = None) -> deployment.Deployment:
        if self._deployment is not None:
            return self._deployment
        name = self._cluster_name()
        if not LocalCluster.exists(name):
            raise MiddlewareError(f"cluster '{name}' is not up: provision the backend first")
        first = self._set_aside is None
        try:
            self._deployment = deployment.Deployment.load(name)
            if first:
                self._set_aside = SetAsideTenants(deployment.middleware_root(name))
                self._said_aside(self._set_aside.from_coordinator(self._deployment.client))
        except MiddlewareNotUp:
            if first:
                self._set_aside = SetAsideTenants(deployment.middleware_root(name))
                self._said_aside(self._set_aside.from_store(self._store_file()))
            middleware = level.middleware if level is not None else None
            policy = middleware.policy if middleware is not None else "static"
            capacity = middleware.capacity if middleware is not None else None
            self._deployment = deployment.up(name, policy, capacity)
            self._started_here = True
        return self._deployment

    def _said_aside(self, names: list[str]) -> None:
        if names:
            _say(f"{self._where()}: tenants {', '.join(names)} (set before this run) are "
                 "set aside for the run and put back when it ends")  # fmt: skip

    def _set_tenants(self, dep: deployment.Deployment, level: IoControlSet | None) -> None:
        """Remove the tenants set before that `level` does not have, then set its own."""
        assert isinstance(self.backend, GlusterBackend)
        wanted = {} if level is None else level.tenants()
        names = {t: self.backend.tenant_volume(t) for t in wanted}
        if self._set_aside is not None:
            self._set_aside.ours(names.values())  # before the coordinator has them
        for spec_tenant, name in list(self._tenants.items()):
            if spec_tenant not in wanted:
                with contextlib.suppress(QosConfigError):  # gone already
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
        nodes: dict = {}
        for _ in range(2):
            since = time.time()

            def behind(since: float = since) -> list[str]:
                nodes.clear()
                nodes.update(dep.client.status()["nodes"])
                return [
                    n
                    for n in dep.agents
                    if n not in nodes or report_time(nodes[n]) <= since or nodes[n]["stale"]
                ]

            left = max(0.0, deadline - time.monotonic())
            if not poll_until(lambda: not behind(), left, interval=0.1):
                raise MiddlewareError(
                    f"the agents of {', '.join(behind())} did not apply the new shares within "
                    f"{SYNC_TIMEOUT:g} s (logs in {dep.directory})"
                )
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


def _lost(dep: deployment.Deployment) -> str | None:
    """Which of `dep`'s services died (their processes, by PID and start time)."""
    if not dep.coordinator.alive():
        return f"its coordinator (PID {dep.coordinator.pid}) died"
    dead = [f"{node} (PID {s.pid})" for node, s in dep.agents.items() if not s.alive()]
    if dead:
        return f"the agent of {', '.join(dead)} died"
    return None


def _say(text: str) -> None:
    """A line in the run's output about the middleware (stderr, beside the progress)."""
    click.echo(text, err=True)
