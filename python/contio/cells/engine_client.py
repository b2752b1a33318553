"""The engine as a client container: one `contio-engine` phase in a container of the
`contio/engine` image, on the experiment's network, next to the database it drives.

The cell's work directory (a host directory owned by the engine's uid) is mounted at
`/cell` in every client: it holds the workload files, each phase's result document
(`<job>.json`) and the start barrier's files (`ready-<job>`, `go`).
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from docker.models.containers import Container

from contio.cells.bindings import EngineBinding
from contio.containers.docker_runtime import ContainerSpec, DataMount, DockerRuntime
from contio.engine.invocation import ycsb_args
from contio.engine.result import EngineResult, read_result
from contio.errors import EngineError, EngineOutputError
from contio.workload.files import packaged_workloads

log = logging.getLogger(__name__)

#: the engine image's user (nobody), which owns the work directory
ENGINE_UID = 65534
#: where the cell's work directory is mounted in each client
WORKDIR = Path("/cell")
#: the file whose creation releases every client waiting at the barrier
GO_FILE = "go"


@dataclass(frozen=True)
class EngineJob:
    """One engine phase to run in a client container."""

    name: str
    """Unique in the experiment; names the container, result and barrier files."""
    phase: str
    binding: EngineBinding
    workload: str
    """A packaged workload (`workloada`, `ms-cloud-storage`, …)."""
    threads: int
    properties: dict[str, str] = field(default_factory=dict)
    """Engine properties (`recordcount`, `maxexecutiontime`, …); they win over the workload's."""
    barrier: bool = False
    """Wait at the cell's start barrier once connected (run phases of a cell)."""

    @property
    def result_file(self) -> str:
        return f"{self.name}.json"

    @property
    def ready_file(self) -> str:
        return f"ready-{self.name}"


def prepare_workdir(path: Path) -> Path:
    """Create the work directory, copy the packaged workloads in, hand it to the engine's uid."""
    workloads = path / "workloads"
    workloads.mkdir(parents=True, exist_ok=True)
    for name, source in packaged_workloads().items():
        shutil.copyfile(source, workloads / name)
    for p in (path, workloads, *workloads.iterdir()):
        os.chown(p, ENGINE_UID, ENGINE_UID)
    path.chmod(0o700)
    return path


def engine_args(job: EngineJob) -> list[str]:
    """The engine's argv (after the entrypoint) for `job`, with paths inside the container."""
    if job.workload not in packaged_workloads():
        raise ValueError(
            f"unknown workload {job.workload!r}; known: {sorted(packaged_workloads())}"
        )
    properties = {**job.binding.properties, **job.properties}
    if job.barrier:
        properties["startbarrier.ready"] = str(WORKDIR / job.ready_file)
        properties["startbarrier.go"] = str(WORKDIR / GO_FILE)
    return ycsb_args(
        job.phase,
        job.binding.target,
        [WORKDIR / "workloads" / job.workload],
        properties,
        job.threads,
        WORKDIR / job.result_file,
    )


def engine_container(
    name: str,
    image: str,
    args: list[str],
    mounts: list[DataMount],
    host_network: bool = False,
    mem_limit: str | None = None,
    environment: dict[str, str] | None = None,
) -> ContainerSpec:
    """One engine phase as a container: `contio/engine` (its entrypoint is the engine)
    with `args`, as the image's unprivileged user, read-only root, no capabilities; in
    the host's network namespace when its binding reaches the server from there
    (`contio.cells.bindings`); limited to `mem_limit` (page cache included) if given."""
    return ContainerSpec(
        name=name,
        image=image,
        role="engine",
        command=args,
        mounts=mounts,
        user=f"{ENGINE_UID}:{ENGINE_UID}",
        read_only=True,
        host_network=host_network,
        mem_limit=mem_limit,
        environment=environment or {},
    )


def start_client(runtime: DockerRuntime, image: str, workdir: Path, job: EngineJob) -> Container:
    """Start `job` in a client container (detached); `finish_client` collects it."""
    mounts = [DataMount(target=str(WORKDIR), host_path=workdir)]
    spec = engine_container(
        job.name, image, engine_args(job), mounts, host_network=job.binding.host_network
    )
    return runtime.run(spec)


def finish_client(
    container: Container, workdir: Path, job: EngineJob, timeout_s: float
) -> EngineResult:
    """Wait for `job`'s container to exit and return its result document.

    A phase that ran but failed still has a document (its `status` says why); an engine
    that wrote none (refused input, killed) raises EngineError with its last log lines.
    """
    exit_code = int(container.wait(timeout=timeout_s)["StatusCode"])
    logs = container.logs(stdout=False, stderr=True).decode(errors="replace").strip()
    tail = "\n".join(logs.splitlines()[-5:])
    try:
        result = read_result(workdir / job.result_file)
    except EngineOutputError:
        raise EngineError(
            f"engine client {job.name} exited with code {exit_code} and no result: {tail}",
            exit_code,
        ) from None
    if result.status != "ok":
        # The binding's first error is on stderr; the document only has the phase's verdict.
        log.warning("engine client %s: %s; stderr ends:\n%s", job.name, result.error, tail)
    return result


def run_client(
    runtime: DockerRuntime, image: str, workdir: Path, job: EngineJob, timeout_s: float = 600
) -> EngineResult:
    """Run `job` to completion in a client container and return its result."""
    container = start_client(runtime, image, workdir, job)
    try:
        return finish_client(container, workdir, job, timeout_s)
    finally:
        container.remove(force=True)
