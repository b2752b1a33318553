"""The `docker` runtime for cells: every container of a cell is a Docker container.

- Data: when the runner places a load group's data (`open_data`), each database target's
  server starts in its image with its data directory on the backend (a host directory,
  bind-mounted, or the Docker volume the backend defines), is probed until ready and
  gets the YCSB schema (`contio.cells.servers`). It runs until the runner releases the
  data (`close_data`), across the load and every run phase on that data.
- Phases: one engine client container (`contio/engine`, uid 65534, read-only root, no
  capabilities, on the experiment's network) per cell container, created together and
  started within moments of each other; YCSB run phases then start their clocks
  together at the engine's start barrier. The engine gets the same arguments as under
  the process runtime: the phase's raw folder, its workload files (read-only) and its
  own data directory are mounted at their host paths (a Docker volume at `/data`).
  The engine's stdout and stderr are kept as files, as the process runtime keeps them.
- Watching: a database container that exits during a phase fails the cell
  (`CellFailed`, with the exit code); the clients are removed with their logs kept.
- Metrics: with a metrics file, the host and each client's and server's cgroup are
  sampled every second (`contio.samplers`).
- Cleanup: every container and volume carries the experiment's label; `close()` (end
  of the run, an error, an interrupt) removes all of them and the network.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker.errors
from docker.models.containers import Container

from contio.cells.bindings import EngineBinding
from contio.cells.engine_client import ENGINE_UID, engine_container
from contio.cells.executor import ContainerPhase, DataSession, RunContext, StatusCallback
from contio.cells.progress import PROGRESS_ENV, ops_per_sec_so_far, progress_file
from contio.cells.servers import Server, ServerRequest, exit_code, remove_servers, start_servers
from contio.cells.watch import Client, release_at_barrier, watch
from contio.containers.data_location import DataLocation, DockerVolume, HostPath
from contio.containers.docker_runtime import DataMount, DockerRuntime
from contio.errors import CellFailed, Interrupted, RuntimeUnavailableError, UsageError
from contio.experiment.matrix import Member
from contio.experiment.spec import ExperimentSpec
from contio.host.waiting import poll_until
from contio.images import engine as engine_image
from contio.qos.io_controls import IoController
from contio.samplers.phase import client_source, server_source
from contio.samplers.series import Sampler
from contio.targets.base import TargetOptions

VOLUME_DIR = Path(engine_image.DATA_DIR)
"""Where an engine container mounts a Docker volume holding its own data (the image's
directory of the engine's user, so a new volume is the engine's to write)."""
BARRIER_TIMEOUT_S = 600.0
"""How long clients may take to connect and reach the start barrier (the engine's own)."""
STATUS_EVERY_S = 1.0


class DockerCellExecutor:
    """Runs a phase's containers as Docker containers next to their database servers."""

    name = "docker"
    barrier = True

    def __init__(
        self,
        runtime: DockerRuntime,
        engine_image: str,
        target_options: Mapping[str, TargetOptions],
        stop_grace_seconds: float = 10.0,
    ):
        self.runtime = runtime
        self.engine_image = engine_image
        self.target_options = dict(target_options)
        self.stop_grace_seconds = stop_grace_seconds
        self.applied: dict[int, dict[str, Any]] = {}
        self._count = 0

    @classmethod
    def for_run(cls, spec: ExperimentSpec, context: RunContext) -> DockerCellExecutor:
        """The executor of a `contio run`: a runtime labelled with the run's experiment id
        (its start-up sweep removes what crashed runs left), on the images `context`'s
        Docker setup made ready."""
        setup = context.docker
        assert setup is not None  # docker cells get their images before anything runs
        runtime = DockerRuntime(experiment=context.experiment)
        try:
            runtime.prepare()
        except docker.errors.DockerException as exc:
            raise RuntimeUnavailableError(f"the Docker engine failed to prepare: {exc}") from exc
        return cls(
            runtime,
            setup.engine_image,
            setup.target_options(spec),
            spec.runtime.stop_grace_seconds,
        )

    def _name(self, what: str) -> str:
        self._count += 1
        return f"{what}{self._count}"

    def _options(self, target: str) -> TargetOptions:
        return self.target_options.get(target) or TargetOptions()

    # -- data ---------------------------------------------------------------------------
    def engine_data_dir(self, location: DataLocation) -> Path:
        return location.path if isinstance(location, HostPath) else VOLUME_DIR

    def open_data(self, members: Sequence[Member], data: Sequence[DataLocation]) -> DataSession:
        """Create the backend's volumes, hand engine-kept data to the engine's uid, and
        start a server for each database member (all at once, then each made ready)."""
        group = self._name("data")
        volumes: list[str] = []
        requests: list[tuple[int, ServerRequest]] = []
        try:
            for k, (member, location) in enumerate(zip(members, data, strict=True), start=1):
                volume = None
                if isinstance(location, DockerVolume):
                    volume = self.runtime.backend_volume(location).name
                    volumes.append(volume)
                if member.database:
                    host = location.path if isinstance(location, HostPath) else None
                    name = f"{group}-c{k}-{member.target}"
                    requests.append((k, ServerRequest(name, member.target, host, volume)))
                elif isinstance(location, HostPath):
                    _lend(location.path)  # the engine writes its files as uid 65534
            servers = start_servers(self.runtime, [r for _, r in requests], self._options)
        except BaseException:
            for volume in volumes:
                self.runtime.remove_volume(volume)
            raise
        bindings: list[EngineBinding | None] = [None] * len(members)
        by_position = {}
        for (k, _), server in zip(requests, servers, strict=True):
            bindings[k - 1] = server.binding
            by_position[k] = server
        return DataSession(
            bindings,
            handle=_Held(by_position, volumes),
            description=[s.describe() for s in servers],
        )

    def close_data(self, session: DataSession) -> None:
        servers, volumes = _parts(session)
        remove_servers(list(servers.values()))
        for volume in volumes:
            self.runtime.remove_volume(volume)

    # -- phases -------------------------------------------------------------------------
    def run_phase(
        self,
        engine: Path,
        containers: Sequence[ContainerPhase],
        io: IoController,
        on_status: StatusCallback | None = None,
        *,
        phase: str = "run",
        session: DataSession | None = None,
        metrics: Path | None = None,
        go_file: Path | None = None,
    ) -> list[int]:
        """Run the containers of one phase; their exit codes in order (see module doc)."""
        if any(c.io_group is not None for c in containers):
            raise UsageError("runtime 'docker' does not apply block I/O groups")
        self.applied = {}
        servers, _ = _parts(session)
        prefix = self._name(phase)
        created: list[tuple[ContainerPhase, Container]] = []
        lent = _LentFolders()
        sampler: Sampler | None = None
        try:
            for c in containers:
                lent.lend(c.json.parent)
                server = servers.get(c.container)
                spec = engine_container(
                    f"{prefix}-c{c.container}", self.engine_image, c.args, _mounts(c),
                    host_network=server is not None
                    and server.binding is not None
                    and server.binding.host_network,
                    mem_limit=c.memory_limit,
                    environment={PROGRESS_ENV: str(progress_file(c.json))},
                )  # fmt: skip
                created.append((c, self.runtime.create(spec)))
            for _, container in created:
                container.start()
            if metrics is not None:
                sampler = self._sampler(created, servers, metrics)
            clients = [Client(f"c{c.container}", ctr, c.ready_file) for c, ctr in created]
            if go_file is not None:
                release_at_barrier(clients, go_file, list(servers.values()), BARRIER_TIMEOUT_S)
            status = _Status(created, on_status)
            watch([ctr for _, ctr in created], list(servers.values()), phase, tick=status.tick)
            return [_code(ctr) for _, ctr in created]
        except Interrupted as exc:
            self._stop([ctr for _, ctr in created], exc.signum)
            raise
        except KeyboardInterrupt:
            self._stop([ctr for _, ctr in created], signal.SIGINT)
            raise
        except docker.errors.APIError as exc:
            raise CellFailed(f"the {phase} phase's containers could not run: {exc}") from exc
        finally:
            try:
                if sampler is not None:
                    sampler.stop()
            finally:
                for c, ctr in created:
                    _keep_logs(c, ctr)
                    _remove(ctr)
                for c in containers:
                    for barrier_file in (c.ready_file, go_file):
                        if barrier_file is not None:
                            barrier_file.unlink(missing_ok=True)
                lent.take_back()

    def _sampler(
        self,
        created: list[tuple[ContainerPhase, Container]],
        servers: dict[int, Server],
        path: Path,
    ) -> Sampler:
        watched = {client_source(c.container): ctr.id for c, ctr in created}
        watched.update({server_source(k): s.container.id for k, s in servers.items()})
        sampler = Sampler(watched, path)
        sampler.start()
        return sampler

    def _stop(self, containers: list[Container], signum: int) -> None:
        """Forward `signum` (their init passes it on), give the engines the grace period to
        write their results, then kill what is left."""
        for container in containers:
            with contextlib.suppress(docker.errors.APIError):  # already exited
                container.kill(signal=int(signum))
        poll_until(
            lambda: all(exit_code(c) is not None for c in containers),
            self.stop_grace_seconds,
            interval=0.1,
        )

    def close(self) -> None:
        """Remove every container, network and volume of the run's experiment."""
        self.runtime.close()


@dataclass(frozen=True)
class _Held:
    """A docker `DataSession`'s handle: its servers by container position, and the
    volumes it created."""

    servers: dict[int, Server]
    volumes: list[str]


def _parts(session: DataSession | None) -> tuple[dict[int, Server], list[str]]:
    if session is None or session.handle is None:
        return {}, []
    assert isinstance(session.handle, _Held)  # sessions are this executor's own
    return session.handle.servers, session.handle.volumes


def _mounts(c: ContainerPhase) -> list[DataMount]:
    """The phase's raw folder (results, job files, barrier), workload files read-only, and
    the engine's own data; each at its host path, a volume at `/data`."""
    folder = c.json.parent
    mounts = [DataMount(target=str(folder), host_path=folder)]
    for path in dict.fromkeys(c.inputs):
        if folder not in path.parents:
            mounts.append(DataMount(target=str(path), host_path=path, read_only=True))
    if isinstance(c.data, HostPath):
        mounts.append(DataMount(target=str(c.data.path), host_path=c.data.path))
    elif isinstance(c.data, DockerVolume):
        mounts.append(DataMount(target=str(VOLUME_DIR), volume=c.data.name))
    return mounts


def _lend(path: Path) -> None:
    """Let the engine's user write in `path` (root: own it; otherwise: open it to all)."""
    if os.geteuid() == 0:
        os.chown(path, ENGINE_UID, ENGINE_UID)
    else:
        path.chmod(0o777)


class _LentFolders:
    """Raw folders handed to the engine's uid for a phase, and given back after it with
    every file the engine wrote, so results stay the run's user's."""

    def __init__(self) -> None:
        self._folders: dict[Path, tuple[int, int, int]] = {}

    def lend(self, folder: Path) -> None:
        if folder not in self._folders:
            info = folder.stat()
            self._folders[folder] = (info.st_uid, info.st_gid, info.st_mode & 0o7777)
            _lend(folder)

    def take_back(self) -> None:
        for folder, (uid, gid, mode) in self._folders.items():
            if os.geteuid() == 0:
                for path in (folder, *folder.iterdir()):
                    os.chown(path, uid, gid)
            folder.chmod(mode)
        self._folders.clear()


class _Status:
    """The live display's ops/s so far, from the clients' status lines (once a second)."""

    def __init__(
        self, created: list[tuple[ContainerPhase, Container]], on_status: StatusCallback | None
    ):
        self._phases = [c for c, _ in created]
        self._on_status = on_status
        self._next = time.monotonic() + STATUS_EVERY_S

    def tick(self) -> None:
        if self._on_status is None or time.monotonic() < self._next:
            return
        self._next = time.monotonic() + STATUS_EVERY_S
        rates = [ops_per_sec_so_far(progress_file(c.json)) for c in self._phases]
        self._on_status(sum(r for r in rates if r is not None))


def _code(container: Container) -> int:
    code = exit_code(container)
    return -1 if code is None else code


def _keep_logs(c: ContainerPhase, container: Container) -> None:
    """The engine's stdout (YCSB text) and stderr (status lines, messages) as files."""
    for path, stdout in ((c.stdout, True), (c.stderr, False)):
        try:
            data = container.logs(stdout=stdout, stderr=not stdout)
        except docker.errors.APIError as exc:
            data = f"(no log: {exc})\n".encode()
        with path.open("xb") as out:
            out.write(data)


def _remove(container: Container) -> None:
    with contextlib.suppress(docker.errors.NotFound):
        container.remove(force=True, v=True)
