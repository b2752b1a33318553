"""The Docker runtime: containers on a real Docker engine, least privilege, always cleaned up.

Lifecycle, as for every runtime: `prepare()` connects (starting dockerd when allowed)
and sweeps leftovers of crashed runs → `run()` / `network()` / `volume()` create
labelled resources → `teardown()` removes everything labelled with the experiment.
Used as a context manager inside `signals.interrupts_raise()`, an interrupt or an
error tears down too.

Least privilege by default: every capability dropped (a target adds back the few it
needs), no new privileges, a read-only root file system with tmpfs where the program
writes scratch files, a private bridge network, ports published on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

import docker
import docker.errors
from docker.models.containers import Container
from docker.models.networks import Network
from docker.models.volumes import Volume
from docker.types import Mount

from contio.containers import labels, sweep
from contio.containers.data_location import DockerVolume
from contio.containers.docker_engine import ensure_engine
from contio.errors import RuntimeUnavailableError

if TYPE_CHECKING:
    from typing_extensions import Self  # a pydantic dependency; typing.Self needs 3.11

log = logging.getLogger(__name__)


@dataclass
class DataMount:
    """A data directory: a host path (bind mount) or a named volume of this experiment."""

    target: str
    host_path: Path | None = None
    volume: str | None = None
    read_only: bool = False

    def to_mount(self) -> Mount:
        """The Docker SDK mount for this data directory."""
        if self.host_path is not None:
            return Mount(
                target=self.target, source=str(self.host_path), type="bind",
                read_only=self.read_only,
            )  # fmt: skip
        if self.volume is not None:
            return Mount(
                target=self.target, source=self.volume, type="volume", read_only=self.read_only
            )
        raise ValueError("DataMount needs host_path or volume")


@dataclass
class ContainerSpec:
    """What to run. `name` is made unique per experiment by the runtime."""

    name: str
    image: str
    role: str
    command: list[str] | None = None
    entrypoint: list[str] | None = None
    environment: dict[str, str] = field(default_factory=dict)
    mounts: list[DataMount] = field(default_factory=list)
    # container port (e.g. "6379/tcp") → published on 127.0.0.1 at a free host port
    ports: list[str] = field(default_factory=list)
    user: str | None = None
    read_only: bool = True
    tmpfs: dict[str, str] = field(default_factory=dict)
    cap_add: list[str] = field(default_factory=list)
    mem_limit: str | int | None = None
    host_network: bool = False
    shm_size: str | None = None


class DockerRuntime:
    """Containers of one experiment on a Docker engine."""

    name = "docker"

    def __init__(self, experiment: str | None = None, start_engine: bool = True):
        self.experiment = experiment or f"exp-{uuid.uuid4().hex[:12]}"
        self.start_engine = start_engine
        self.owner = labels.Owner.current()
        self._client: docker.DockerClient | None = None
        self._network: Network | None = None

    @property
    def client(self) -> docker.DockerClient:
        """The connected Docker client (after `prepare()`)."""
        if self._client is None:
            raise RuntimeUnavailableError("DockerRuntime used before prepare()")
        return self._client

    def labels(self, role: str) -> dict[str, str]:
        """The labels of a resource of this experiment with `role`."""
        return labels.resource_labels(self.experiment, role, self.owner)

    def prepare(self) -> None:
        """Connect to the engine (starting it when allowed) and sweep crashed runs' leftovers."""
        self._client = ensure_engine(start=self.start_engine)
        sweep.sweep_leftovers(self._client)

    def network(self) -> Network:
        """The experiment's private bridge network, created on first use."""
        if self._network is None:
            self._network = self.client.networks.create(
                f"contio-{self.experiment}", driver="bridge", labels=self.labels("network")
            )
        return self._network

    def volume(self, name: str, role: str = "data") -> Volume:
        """A named volume of this experiment (removed at teardown)."""
        return self.client.volumes.create(
            name=f"contio-{self.experiment}-{name}", labels=self.labels(role)
        )

    def backend_volume(self, definition: DockerVolume, role: str = "data") -> Volume:
        """The volume a storage backend defines (its name, driver and options, e.g. an NFS
        export), labelled with this experiment too, so teardown and the start-up sweep
        remove it."""
        return self.client.volumes.create(
            name=definition.name,
            driver=definition.driver,
            driver_opts=dict(definition.driver_opts),
            labels={**definition.labels, **self.labels(role)},
        )

    def remove_volume(self, name: str) -> None:
        """Remove a volume of this experiment now (teardown would remove it later)."""
        with contextlib.suppress(docker.errors.NotFound):
            self.client.volumes.get(name).remove(force=True)

    def run(self, spec: ContainerSpec) -> Container:
        """Start a container from `spec`, detached, on the experiment's network."""
        container = self.create(spec)
        container.start()
        container.reload()
        return container

    def create(self, spec: ContainerSpec) -> Container:
        """Create (not start) a container from `spec` on the experiment's network, so that
        several can then be started within moments of each other."""
        kwargs: dict = {
            "name": f"contio-{self.experiment}-{spec.name}",
            "labels": self.labels(spec.role),
            "detach": True,
            "environment": spec.environment,
            "mounts": [m.to_mount() for m in spec.mounts],
            "read_only": spec.read_only,
            "tmpfs": spec.tmpfs,
            "cap_drop": ["ALL"],
            "cap_add": spec.cap_add,
            "security_opt": ["no-new-privileges"],
            "user": spec.user,
            "mem_limit": spec.mem_limit,
            "shm_size": spec.shm_size,
            # An init process reaps zombies and forwards signals, so `stop` is prompt.
            "init": True,
        }
        if spec.command is not None:
            kwargs["command"] = spec.command
        if spec.entrypoint is not None:
            kwargs["entrypoint"] = spec.entrypoint
        if spec.mem_limit is not None:
            # Same value for memory+swap: no swap, so the limit really bounds the page cache.
            kwargs["memswap_limit"] = spec.mem_limit
        if spec.host_network:
            kwargs["network_mode"] = "host"
        else:
            kwargs["network"] = self.network().name
            kwargs["ports"] = {port: ("127.0.0.1", None) for port in spec.ports}
        return self.client.containers.create(spec.image, **kwargs)

    def teardown(self) -> sweep.Removed:
        """Remove every container, network and volume of this experiment."""
        if self._client is None:
            return sweep.Removed()
        removed = sweep.remove_experiment(self._client, self.experiment)
        self._network = None
        return removed

    def close(self) -> None:
        """Tear down and close the connection."""
        try:
            self.teardown()
        finally:
            if self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> Self:
        self.prepare()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def published_port(container: Container, port: str) -> int:
    """The host port on 127.0.0.1 where `port` (e.g. "6379/tcp") of `container` is published."""
    container.reload()
    bindings = container.attrs["NetworkSettings"]["Ports"].get(port) or []
    for binding in bindings:
        if binding.get("HostIp") in ("127.0.0.1", "0.0.0.0", ""):
            return int(binding["HostPort"])
    raise RuntimeUnavailableError(f"container {container.name} publishes no host port for {port}")
