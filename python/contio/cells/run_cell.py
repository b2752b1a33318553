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
from pathlib import Path

import docker.errors
from docker.models.containers import Container

from contio.cells import engine_client
from contio.cells.engine_client import EngineJob, finish_client, prepare_workdir, start_client
from contio.cells.layout import CellSpec
from contio.cells.outcome import CellResult, InstanceResult
from contio.cells.servers import Server, ServerRequest, remove_servers, start_servers
from contio.cells.watch import Client, release_at_barrier, watch
from contio.containers.docker_runtime import DockerRuntime
from contio.errors import CellFailed, ContioError, Interrupted
from contio.samplers.series import Sampler

log = logging.getLogger(__name__)

__all__ = ["CellFailed", "run_cell"]


def run_cell(runtime: DockerRuntime, spec: CellSpec, out_dir: Path) -> CellResult:
    """Run `spec` on `runtime` (prepared), writing results to `out_dir`; never raises
    for a failed cell (the result says why), only for interrupts and bad input."""
    out_dir.mkdir(parents=True, exist_ok=True)
    prepare_workdir(out_dir)
    result = CellResult(status="ok", reason=None, out_dir=out_dir)
    result.instances = [InstanceResult(instance=i) for i in spec.instances]
    servers: list[Server] = []
    clients: list[Container] = []
    volumes: list[str] = []
    try:
        servers += _start_servers(runtime, spec, result, volumes)
        _load(runtime, spec, servers, result, out_dir, clients)
        _run(runtime, spec, servers, result, out_dir, clients)
    except Interrupted:
        raise
    except (ContioError, docker.errors.APIError) as exc:
        result.status, result.reason = "failed", str(exc)
    finally:
        _remove(runtime, clients, servers, volumes)
        (out_dir / "cell.json").write_text(json.dumps(result.summary(), indent=2) + "\n")
    return result


def _start_servers(
    runtime: DockerRuntime, spec: CellSpec, result: CellResult, volumes: list[str]
) -> list[Server]:
    requests = []
    for instance in spec.instances:
        name = f"db-{instance.name}"
        if instance.data_dir is None:
            volumes.append(runtime.volume(name).name)
            requests.append(ServerRequest(name, instance.target, volume=volumes[-1]))
        else:
            requests.append(ServerRequest(name, instance.target, host_path=instance.data_dir))
    servers = start_servers(runtime, requests, lambda _: spec.options)
    for server, instance_result in zip(servers, result.instances, strict=True):
        instance_result.ready_seconds = server.ready_seconds
    return servers


def _job(spec: CellSpec, server: Server, instance: str, phase: str) -> EngineJob:
    assert server.binding is not None
    extra = spec.run_properties if phase == "run" else {}
    return EngineJob(
        name=f"{instance}-{phase}",
        phase=phase,
        binding=server.binding,
        workload=spec.workload,
        threads=spec.threads,
        properties={**spec.properties, **extra},
        barrier=phase == "run",
    )


def _load(runtime, spec, servers, result, out_dir, created) -> None:
    jobs = [_job(spec, s, i.name, "load") for s, i in zip(servers, spec.instances, strict=True)]
    clients = [start_client(runtime, spec.engine_image, out_dir, j) for j in jobs]
    created.extend(clients)
    for job, container, instance in zip(jobs, clients, result.instances, strict=True):
        instance.load = finish_client(container, out_dir, job, spec.phase_timeout_s)
        if instance.load.status != "ok":
            raise CellFailed(f"load of {job.name} {instance.load.status}: {instance.load.error}")


def _run(runtime, spec, servers, result, out_dir, created) -> None:
    jobs = [_job(spec, s, i.name, "run") for s, i in zip(servers, spec.instances, strict=True)]
    clients = [start_client(runtime, spec.engine_image, out_dir, j) for j in jobs]
    created.extend(clients)
    names = [i.name for i in spec.instances]
    watched = {f"db-{n}": s.container.id for n, s in zip(names, servers, strict=True)}
    watched.update({f"client-{n}": c.id for n, c in zip(names, clients, strict=True)})
    sampler = Sampler(watched, out_dir / "metrics.jsonl", spec.sample_interval_s)
    sampler.start()
    try:
        waiting = [
            Client(j.name, c, out_dir / j.ready_file) for j, c in zip(jobs, clients, strict=True)
        ]
        release_at_barrier(waiting, out_dir / engine_client.GO_FILE, servers, spec.phase_timeout_s)
        watch(clients, servers, "run", spec.phase_timeout_s)
    finally:
        sampler.stop()
    for name, job, container, instance in zip(names, jobs, clients, result.instances, strict=True):
        instance.run = finish_client(container, out_dir, job, spec.phase_timeout_s)
        instance.database = sampler.totals.get(f"db-{name}")
        instance.client = sampler.totals.get(f"client-{name}")
    failed = [i for i in result.instances if i.run is not None and i.run.status != "ok"]
    if failed:
        first = failed[0]
        raise CellFailed(f"run of {first.instance.name} {first.run.status}: {first.run.error}")


def _remove(
    runtime: DockerRuntime, clients: list[Container], servers: list[Server], volumes: list[str]
) -> None:
    for container in reversed(clients):
        try:
            container.remove(force=True, v=True)
        except docker.errors.NotFound:
            pass
    remove_servers(servers)
    for name in volumes:
        runtime.remove_volume(name)
