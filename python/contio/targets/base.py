"""What every database target knows: how to start its server in a container, wait until it
is ready, create the YCSB table, and run with caches minimal.

Lifecycle (as for runtimes and backends): `start()` → `wait_ready()` → `create_schema()`
→ use → the runtime's teardown removes the container. A target never sleeps a fixed
time: readiness is a protocol-level probe (the database's own client in the container,
or a handshake from Python), retried until a deadline.

Image families: a target runs contio's offline image (`contio/<recipe>`) or, when
`TargetOptions.image` names one, a registry image, taken to be the official image of
its database (`mysql`, `postgres`, `redis`, `cassandra`, `mongo`, …). The two differ in
entrypoint conventions (environment variables, the server's uid, client binaries), so a
target asks `family()` at start and `container_family()` afterwards: the steps after
`start()` get only the container, and a contio image carries the `contio.recipe` label.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import ClassVar

import docker.errors
from docker.models.containers import Container

from contio.containers import labels
from contio.containers.docker_runtime import ContainerSpec, DataMount, DockerRuntime
from contio.errors import TargetNotReadyError, UsageError

YCSB_FIELDS = [f"FIELD{i}" for i in range(10)]
YCSB_DATABASE = "ycsb"
YCSB_TABLE = "usertable"
# Credentials of the account the engine uses; the databases listen on the experiment's
# private network (and on 127.0.0.1 of the host) only.
YCSB_USER = "ycsb"
YCSB_PASSWORD = "ycsb"

#: the family of contio's own offline images (`family()`); others are repository names
CONTIO = "contio"
#: the uid the official Docker images of MySQL, MariaDB, PostgreSQL, Redis, Cassandra and
#: MongoDB give their server's user; a registry image runs as it, so its entrypoint skips
#: the steps that need root (chown, gosu) and no capability is needed
REGISTRY_UID = 999


class CacheMode(str, Enum):
    """How much the database may cache: its defaults, or as little as it allows."""

    DEFAULT = "default"
    MINIMAL = "minimal"


@dataclass(frozen=True)
class TargetOptions:
    """How to run a database target."""

    cache: CacheMode = CacheMode.DEFAULT
    #: container memory limit (e.g. "512m"); swap is disabled with it, so the page cache
    #: the database can use is bounded too
    mem_limit: str | None = None
    #: a registry image to use instead of contio's offline one (e.g. "mysql:5.7"), run
    #: the way the official image of the target's database expects (docs/docker.md)
    image: str | None = None
    #: the exact image to run (an id), when a run pins the build or pull it holds; the
    #: image's family (how to run it) still comes from `image`: None means contio's
    image_id: str | None = None
    #: seconds to wait for the readiness probe
    ready_timeout_s: float = 180.0


@dataclass
class ProbeResult:
    """One readiness attempt."""

    ready: bool
    detail: str = ""


def repository_name(reference: str) -> str:
    """The last path component of an image reference without tag or digest:
    `registry:5000/library/mysql:5.7@sha256:…` → `mysql`."""
    name = reference.split("@", 1)[0].rsplit("/", 1)[-1]
    return name.split(":", 1)[0]


class DatabaseTarget(ABC):
    """One database server in a container."""

    #: registered name ("mariadb", "postgres", ...)
    name: str
    #: the contio image recipe that provides the server; None when there is no offline
    #: image and a registry image must be named (`mongodb`)
    recipe: str | None
    #: the server's port inside the container, e.g. "3306/tcp"
    port: str
    #: where the server keeps its data inside the container
    data_dir: str
    #: uid (= gid) the server runs as in contio's image; a host data directory is handed to it
    uid: int
    #: writable scratch directories on a read-only root file system
    tmpfs: ClassVar[dict[str, str]] = {"/tmp": "rw,size=64m"}

    @property
    def image(self) -> str:
        """contio's offline image of this database."""
        if self.recipe is None:
            raise UsageError(
                f"database target {self.name!r} has no offline image; name a registry "
                "image for it (TargetOptions.image)"
            )
        return f"contio/{self.recipe}:latest"

    def image_for(self, options: TargetOptions) -> str:
        """The image a server with `options` runs: the pinned id, else the one named, else
        contio's."""
        return options.image_id or options.image or self.image

    def recipe_for(self, options: TargetOptions) -> str | None:
        """The contio recipe to build before starting with `options`; None for a registry image."""
        return None if self.family(options.image) != CONTIO else self.recipe

    def family(self, image: str | None) -> str:
        """`CONTIO` for contio's image (None = the default), else the repository name."""
        if image is None or (self.recipe is not None and image == self.image):
            return CONTIO
        return repository_name(image)

    def container_family(self, container: Container) -> str:
        """The family of the image `container` runs (contio's images carry their recipe label)."""
        if self.recipe is not None and container.labels.get(labels.RECIPE_NAME) == self.recipe:
            return CONTIO
        return repository_name(container.attrs["Config"]["Image"])

    def server_uid(self, options: TargetOptions) -> int:
        """The uid (= gid) the server runs as: contio's fixed one, or the official images' one."""
        return self.uid if self.family(options.image) == CONTIO else REGISTRY_UID

    def read_only(self, options: TargetOptions) -> bool:
        """Whether the root file system can be read-only (an entrypoint may rewrite its config)."""
        return True

    def scratch(self, options: TargetOptions) -> dict[str, str]:
        """tmpfs mounts (path → options) for what the server writes outside its data directory."""
        return dict(self.tmpfs)

    @abstractmethod
    def server_args(self, options: TargetOptions) -> list[str]:
        """Arguments passed to the image's entrypoint (the server's options); [] keeps the
        image's default command."""

    def environment(self, options: TargetOptions) -> dict[str, str]:
        """Environment variables of the server container."""
        return {}

    @abstractmethod
    def probe(self, container: Container) -> ProbeResult:
        """One readiness attempt at the protocol level."""

    @abstractmethod
    def create_schema(self, container: Container) -> None:
        """Create the YCSB table, keyspace or collection (idempotent)."""

    @abstractmethod
    def effective_settings(self, container: Container) -> dict[str, str]:
        """The cache and durability settings the running server reports, by the server's
        own names (`innodb_buffer_pool_size`, `shared_buffers`, `appendfsync`, …): what
        `CacheMode.MINIMAL` is meant to change, asked of the server rather than assumed.
        """

    def address(self, container: Container) -> tuple[str, int]:
        """Where clients on the experiment's network reach the server: (container name, port).

        Docker's embedded DNS resolves container names on user-defined networks, so an
        engine container on the same network connects without knowing any IP address.
        """
        return container.name, int(self.port.split("/")[0])

    def container_spec(self, name: str, data: DataMount, options: TargetOptions) -> ContainerSpec:
        """What to run for one server with its data at `data`."""
        uid = self.server_uid(options)
        return ContainerSpec(
            name=name,
            image=self.image_for(options),
            role=f"db-{self.name}",
            command=self.server_args(options),
            environment=self.environment(options),
            mounts=[data],
            ports=[self.port],
            user=f"{uid}:{uid}",
            read_only=self.read_only(options),
            tmpfs=self.scratch(options),
            mem_limit=options.mem_limit,
        )

    def start(
        self,
        runtime: DockerRuntime,
        name: str,
        options: TargetOptions,
        host_path: Path | None = None,
        volume: str | None = None,
    ) -> Container:
        """Start the server with its data on `host_path` (bind mount) or the named `volume`."""
        # A target without an offline image and none named fails here, before anything exists.
        self.image_for(options)
        if host_path is not None:
            prepare_host_dir(host_path, self.server_uid(options))
            data = DataMount(target=self.data_dir, host_path=host_path)
        else:
            volume_name = runtime.volume(volume or name).name
            data = DataMount(target=self.data_dir, volume=volume_name)
        return runtime.run(self.container_spec(name, data, options))

    def wait_ready(self, container: Container, timeout_s: float) -> float:
        """Retry `probe` until it passes; return the seconds it took.

        Raises TargetNotReadyError (with the container's last log lines) when the
        container exits or `timeout_s` passes first.
        """
        started = time.monotonic()
        deadline = started + timeout_s
        delay = 0.1
        last = ProbeResult(False, "not probed")
        while True:
            container.reload()
            if container.status in ("exited", "dead"):
                raise self._not_ready(container, f"the container exited ({last.detail[-500:]})")
            last = self.probe(container)
            if last.ready:
                return time.monotonic() - started
            if time.monotonic() >= deadline:
                raise self._not_ready(
                    container, f"not ready after {timeout_s:.0f}s ({last.detail[-500:]})"
                )
            # Back off so a slow start (Cassandra) is not hammered with probes.
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

    def _not_ready(self, container: Container, why: str) -> TargetNotReadyError:
        logs = container.logs(tail=20).decode(errors="replace").rstrip()
        return TargetNotReadyError(
            f"{self.name} in container {container.name}: {why}; last log lines:\n{logs}"
        )


def exec_in(
    container: Container, argv: list[str], env: dict[str, str] | None = None
) -> ProbeResult:
    """Run `argv` in `container`; ready when it exits 0. Output goes in `detail`."""
    try:
        code, output = container.exec_run(argv, environment=env)
    except docker.errors.APIError as exc:
        # The container stopped between the status check and the exec.
        return ProbeResult(False, f"exec failed: {exc.explanation or exc}")
    return ProbeResult(code == 0, (output or b"").decode(errors="replace").strip())


def run_in(container: Container, argv: list[str], env: dict[str, str] | None = None) -> str:
    """Run `argv` in `container` and return its output; TargetNotReadyError when it fails."""
    result = exec_in(container, argv, env)
    if not result.ready:
        raise TargetNotReadyError(
            f"`{' '.join(argv)}` failed in {container.name}: {result.detail[-500:]}"
        )
    return result.detail


def prepare_host_dir(path: Path, uid: int) -> None:
    """Create the data directory and hand it to the server's uid (mode 0700)."""
    path.mkdir(parents=True, exist_ok=True)
    os.chown(path, uid, uid)
    path.chmod(0o700)


def pairs(output: str, separator: str = "\t") -> dict[str, str]:
    """`name<separator>value` lines (a client's batch output) as a dict; other lines are skipped."""
    split = (line.split(separator, 1) for line in output.splitlines() if separator in line)
    return {name.strip(): value.strip() for name, value in split}
