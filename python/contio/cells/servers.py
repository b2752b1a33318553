"""Database servers of a cell: started together, each with its data on a host directory
or a volume, made ready (a protocol-level probe), given the YCSB schema, watched while
clients run, and removed.

The Docker cell executor (`contio.cells.docker_executor`) starts its servers here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import docker.errors
from docker.models.containers import Container

from contio.cells.bindings import EngineBinding, engine_binding
from contio.containers.docker_runtime import DataMount, DockerRuntime
from contio.errors import CellFailed, ContioError, Interrupted
from contio.targets import registry
from contio.targets.base import DatabaseTarget, TargetOptions


@dataclass(frozen=True)
class ServerRequest:
    """One server to start: its name in the experiment, database target, and data."""

    name: str
    """Unique in the experiment (the container is `contio-<experiment>-<name>`)."""
    target: str
    host_path: Path | None = None
    """Its data directory on the backend (bind-mounted); or:"""
    volume: str | None = None
    """a volume of the experiment, already created."""


@dataclass
class Server:
    """A running database server."""

    request: ServerRequest
    target: DatabaseTarget
    container: Container
    binding: EngineBinding | None = None
    ready_seconds: float | None = None

    def describe(self) -> dict[str, object]:
        """What ran, for the results folder (`servers.json`)."""
        self.container.reload()
        return {
            "name": self.request.name,
            "target": self.target.name,
            "container": self.container.name,
            "image": (self.container.image.tags or [None])[0],
            "image_id": self.container.attrs.get("Image"),
            "data": str(self.request.host_path) if self.request.host_path else None,
            "volume": self.request.volume,
            "ready_seconds": self.ready_seconds,
            "engine_target": self.binding.target if self.binding else None,
            # How the clients reached it (`contio.cells.bindings`): their network, and the
            # binding's connection properties but its password.
            "client_network": (
                ("host" if self.binding.host_network else "bridge") if self.binding else None
            ),
            "connection": (
                {k: v for k, v in self.binding.properties.items() if not k.endswith(".password")}
                if self.binding
                else None
            ),
        }


OptionsFor = Callable[[str], TargetOptions]
"""Target name → how to run it (cache mode, memory limit, image)."""


def start_servers(
    runtime: DockerRuntime, requests: Sequence[ServerRequest], options: OptionsFor
) -> list[Server]:
    """Start every server at once, then wait for each to be ready and give it its schema.

    On any failure the servers started so far are removed and `CellFailed` says which
    server and why (the probe's detail, the container's last log lines).
    """
    servers: list[Server] = []
    try:
        for request in requests:
            target = registry.target(request.target)
            servers.append(Server(request, target, _start(runtime, target, request, options)))
        for server in servers:
            opts = options(server.target.name)
            server.ready_seconds = server.target.wait_ready(server.container, opts.ready_timeout_s)
            server.target.create_schema(server.container)
            server.binding = engine_binding(server.target, server.container)
    except Interrupted:
        remove_servers(servers)
        raise
    except (ContioError, docker.errors.APIError, OSError) as exc:
        remove_servers(servers)
        if isinstance(exc, CellFailed):
            raise
        raise CellFailed(f"a database server did not start: {exc}") from exc
    except BaseException:
        remove_servers(servers)
        raise
    return servers


def _start(
    runtime: DockerRuntime, target: DatabaseTarget, request: ServerRequest, options: OptionsFor
) -> Container:
    opts = options(target.name)
    if request.host_path is not None:
        # The target hands the directory to its server's uid and bind-mounts it.
        return target.start(runtime, request.name, opts, host_path=request.host_path)
    if request.volume is None:
        raise ValueError(f"server {request.name}: give a host path or a volume")
    # A volume made already (the backend's definition): Docker fills an empty volume from
    # the image's data directory, with its owner.
    data = DataMount(target=target.data_dir, volume=request.volume)
    return runtime.run(target.container_spec(request.name, data, opts))


def exit_code(container: Container) -> int | None:
    """The exit code when `container` has stopped, else None."""
    try:
        container.reload()
    except docker.errors.NotFound:
        return -1  # removed from under us: gone all the same
    if container.status in ("exited", "dead"):
        return int(container.attrs["State"]["ExitCode"])
    return None


def check_servers(servers: Sequence[Server], when: str) -> None:
    """Raise `CellFailed` naming the first server container that is no longer running."""
    for server in servers:
        code = exit_code(server.container)
        if code is not None:
            raise CellFailed(
                f"database container {server.request.name} ({server.target.name}) exited "
                f"with code {code} {when}"
            )


def remove_servers(servers: Sequence[Server]) -> None:
    """Remove the servers' containers (their data stays with the backend)."""
    for server in reversed(servers):
        with contextlib.suppress(docker.errors.NotFound):
            server.container.remove(force=True, v=True)
