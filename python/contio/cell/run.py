"""Run one cell: start its database containers, load each through its own client,
release every client's run phase together (the start barrier), sample cgroups and the
host every second, and collect the results per container.

Failure handling: a database that does not become ready, a phase that fails, or a
database container that exits mid-run ends the cell with `status="failed"` and the
reason; the cell's containers and volumes are removed in every case (an interrupt is
re-raised after the cleanup). The caller owns the data directories (the backend's).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import docker.errors
from docker.models.containers import Container

from contio.cell import client as engine_client
from contio.cell.bindings import EngineBinding, engine_binding
from contio.cell.client import EngineJob, finish_client, prepare_workdir, start_client
from contio.cell.plan import CellSpec, InstanceSpec
from contio.cell.results import CellResult, InstanceResult
from contio.errors import ContioError, Interrupted
from contio.runtime.docker import DockerRuntime
from contio.samplers.series import Sampler
from contio.targets import registry

log = logging.getLogger(__name__)

#: how often running containers are checked during the run phase
POLL_S = 0.2


class CellFailed(ContioError):
    """Ends a cell early; its message is the cell's recorded reason."""


@dataclass
class _Server:
    spec: InstanceSpec
    container: Container
    binding: EngineBinding | None = None


def run_cell(runtime: DockerRuntime, spec: CellSpec, out_dir: Path) -> CellResult:
    """Run `spec` on `runtime` (prepared), writing results to `out_dir`; never raises
    for a failed cell (the result says why), only for interrupts and bad input."""
    out_dir.mkdir(parents=True, exist_ok=True)
    prepare_workdir(out_dir)
    result = CellResult(status="ok", reason=None, out_dir=out_dir)
    result.instances = [InstanceResult(instance=i) for i in spec.instances]
    created: list[Container] = []
    volumes: list[str] = []
    try:
        servers = _start_servers(runtime, spec, result, created, volumes)
        _load(runtime, spec, servers, result, out_dir, created)
        _run(runtime, spec, servers, result, out_dir, created)
    except Interrupted:
        raise
    except (ContioError, docker.errors.APIError) as exc:
        result.status, result.reason = "failed", str(exc)
    finally:
        _remove(runtime, created, volumes)
        (out_dir / "cell.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    return result


def _start_servers(
    runtime: DockerRuntime,
    spec: CellSpec,
    result: CellResult,
    created: list[Container],
    volumes: list[str],
) -> list[_Server]:
    servers = []
    for instance in spec.instances:
        target = registry.target(instance.target)
        name = f"db-{instance.name}"
        if instance.data_dir is None:
            # target.start creates the volume; its name is the runtime's convention.
            volumes.append(f"contio-{runtime.experiment}-{name}")
            container = target.start(runtime, name, spec.options, volume=name)
        else:
            container = target.start(runtime, name, spec.options, host_path=instance.data_dir)
        created.append(container)
        servers.append(_Server(instance, container))
    # All servers start at once; each is then waited for and given its schema.
    for server, instance_result in zip(servers, result.instances, strict=True):
        target = registry.target(server.spec.target)
        instance_result.ready_seconds = target.wait_ready(
            server.container, spec.options.ready_timeout_s
        )
        target.create_schema(server.container)
        server.binding = engine_binding(target, server.container)
    return servers


def _job(spec: CellSpec, server: _Server, phase: str) -> EngineJob:
    assert server.binding is not None
    extra = spec.run_properties if phase == "run" else {}
    return EngineJob(
        name=f"{server.spec.name}-{phase}",
        phase=phase,
        binding=server.binding,
        workload=spec.workload,
        threads=spec.threads,
        properties={**spec.properties, **extra},
        barrier=phase == "run",
    )


def _load(runtime, spec, servers, result, out_dir, created) -> None:
    jobs = [_job(spec, s, "load") for s in servers]
    clients = [start_client(runtime, spec.engine_image, out_dir, j) for j in jobs]
    created.extend(clients)
    for job, container, instance in zip(jobs, clients, result.instances, strict=True):
        instance.load = finish_client(container, out_dir, job, spec.phase_timeout_s)
        if instance.load.status != "ok":
            raise CellFailed(f"load of {job.name} {instance.load.status}: {instance.load.error}")


def _run(runtime, spec, servers, result, out_dir, created) -> None:
    jobs = [_job(spec, s, "run") for s in servers]
    clients = [start_client(runtime, spec.engine_image, out_dir, j) for j in jobs]
    created.extend(clients)
    watched = {f"db-{s.spec.name}": s.container.id for s in servers}
    watched.update({f"client-{s.spec.name}": c.id for s, c in zip(servers, clients, strict=True)})
    sampler = Sampler(watched, out_dir / "metrics.jsonl", spec.sample_interval_s)
    sampler.start()
    try:
        _barrier(servers, clients, jobs, out_dir, spec.phase_timeout_s)
        _watch(servers, clients, spec.phase_timeout_s)
    finally:
        sampler.stop()
    for server, job, container, instance in zip(
        servers, jobs, clients, result.instances, strict=True
    ):
        instance.run = finish_client(container, out_dir, job, spec.phase_timeout_s)
        instance.database = sampler.totals.get(f"db-{server.spec.name}")
        instance.client = sampler.totals.get(f"client-{server.spec.name}")
    failed = [i for i in result.instances if i.run is not None and i.run.status != "ok"]
    if failed:
        first = failed[0]
        raise CellFailed(f"run of {first.instance.name} {first.run.status}: {first.run.error}")


def _exited(container: Container) -> int | None:
    """The exit code when `container` has stopped, else None."""
    container.reload()
    if container.status in ("exited", "dead"):
        return int(container.attrs["State"]["ExitCode"])
    return None


def _check_servers(servers: list[_Server], when: str) -> None:
    for server in servers:
        code = _exited(server.container)
        if code is not None:
            raise CellFailed(
                f"database container {server.spec.name} ({server.spec.target}) exited "
                f"with code {code} {when}"
            )


def _barrier(servers, clients, jobs, out_dir: Path, timeout_s: float) -> None:
    """Release the clients once each has connected and is waiting (its ready file)."""
    deadline = time.monotonic() + timeout_s
    waiting = {j.ready_file: (j, c) for j, c in zip(jobs, clients, strict=True)}
    while waiting:
        for ready_file in [f for f in waiting if (out_dir / f).exists()]:
            del waiting[ready_file]
        for job, container in waiting.values():
            if _exited(container) is not None:
                raise CellFailed(f"engine client {job.name} exited before the start barrier")
        _check_servers(servers, "before the run phase started")
        if time.monotonic() > deadline:
            raise CellFailed(f"clients not at the start barrier after {timeout_s:.0f}s")
        time.sleep(POLL_S / 4)
    (out_dir / engine_client.GO_FILE).touch()


def _watch(servers, clients, timeout_s: float) -> None:
    """Wait for every client to finish; a database exiting first fails the cell."""
    deadline = time.monotonic() + timeout_s
    while any(_exited(c) is None for c in clients):
        _check_servers(servers, "during the run phase")
        if time.monotonic() > deadline:
            raise CellFailed(f"the run phase did not end within {timeout_s:.0f}s")
        time.sleep(POLL_S)
    # A server that died at the very end still makes the run suspect.
    _check_servers(servers, "during the run phase")


def _remove(runtime: DockerRuntime, containers: list[Container], volumes: list[str]) -> None:
    for container in reversed(containers):
        try:
            container.remove(force=True, v=True)
        except docker.errors.NotFound:
            pass
    for name in volumes:
        try:
            runtime.client.volumes.get(name).remove(force=True)
        except docker.errors.NotFound:
            pass
