"""The interface of every storage backend (local-dir, local, striped, gluster, nfs, path).

Lifecycle, as for every contio resource: `provision` makes the storage (once),
`new_directory(label)` hands out a fresh host directory on it and `data_location(name)`
a container's or process's place on it (a host path or a Docker volume definition),
`release(path)` removes a directory once its runs are done, `describe` says what the
storage is (saved with every result), `teardown` removes everything the backend
created and nothing else. `capabilities` says what else a backend can do, so callers
ask it instead of probing for attributes.

`JournaledBackend` is the base of the backends that record what they make in an undo
journal under contio's state directory (all but `local-dir`).
"""

from __future__ import annotations

import re
import shutil
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError
from typing_extensions import Self

from contio.containers.data_location import DataLocation, HostPath
from contio.errors import BackendError, BackendOptionError
from contio.host.owned_dirs import real_subdirectory
from contio.host.owner_lock import OwnerLock
from contio.host.state_dir import state_root
from contio.host.undo_journal import UndoJournal
from contio.validation_errors import reworded


class BackendOptions(BaseModel):
    """Base of every backend's options: unknown options are rejected, values are checked."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


HostProblem = tuple[str, str]
"""(option, what is wrong with it on this host), e.g. ("device", "/dev/sdb holds ext4 …")."""


def parse_options(backend: str, model: type[BackendOptions], raw: dict[str, Any]) -> Any:
    """Validate `raw` against `model`; a `BackendOptionError` names each bad option."""
    if not isinstance(raw, dict):
        raise BackendOptionError(
            backend, "", f"options must be a mapping, got {type(raw).__name__}"
        )
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        errors = exc.errors()
        option = _option_of(model, errors[0])
        # One problem of a named option: the error's prefix names it already.
        name_each = len(errors) > 1 or not option
        problems = [_describe_problem(model, err, name_it=name_each) for err in errors]
        raise BackendOptionError(backend, option, "; ".join(problems)) from None


def _option_of(model: type[BaseModel], err: Any) -> str:
    """The option an error is about: its location, or for checks across options the first
    option the message quotes (those messages always quote the option to change)."""
    if err["loc"]:
        return ".".join(str(p) for p in err["loc"])
    for name in re.findall(r"'([a-z_]+)'", str(err["msg"])):
        if name in model.model_fields:
            return name
    return ""


def _describe_problem(model: type[BackendOptions], err: Any, *, name_it: bool) -> str:
    option = _option_of(model, err) or "(options)"
    if err["type"] == "extra_forbidden":
        allowed = ", ".join(sorted(model.model_fields))
        return f"'{option}' is not an option; allowed options: {allowed}"
    if err["type"] == "literal_error":
        return f"'{option}' must be one of {err['ctx']['expected']}"
    reason = reworded(err, model)  # pydantic's words are a programmer's
    return f"'{option}': {reason}" if name_it else reason


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do beyond host directories."""

    docker_volumes: bool = False
    """`data_location` may hand out Docker volumes (with some options, see
    `StorageBackend.volume_option`); a host directory otherwise."""
    node_faults: bool = False
    """Node-stop events can play on it: `fault_domain` gives the cluster and volume."""


class StorageBackend(ABC):
    """A storage backend: provisions storage, hands out data locations, tears down."""

    name: ClassVar[str]
    options_model: ClassVar[type[BackendOptions]]
    capabilities: ClassVar[Capabilities] = Capabilities()
    path_options: ClassVar[tuple[str, ...]] = ()
    """Options naming a file or directory on this host: in a spec, a relative one is
    relative to the spec's folder (as workload paths are)."""

    @classmethod
    def host_problems(cls, options: BackendOptions) -> list[HostProblem]:
        """What this host lacks for `options`, found without making or changing anything
        (a missing path, a device that holds data or is in use, a device too small for
        its file system). `contio plan` and `contio run` refuse a spec with any before
        anything is made; provisioning checks again (`refuse_host_problems`)."""
        return []

    @classmethod
    def plan_notes(cls, options: BackendOptions) -> list[str]:
        """What `contio plan` should say the backend will do beyond making its own
        storage (a device it will format or erase)."""
        return []

    def refuse_host_problems(self) -> None:
        """Raise the first of `host_problems` as a `BackendOptionError` (exit code 2)."""
        for option, message in self.host_problems(self.options):
            raise BackendOptionError(self.name, option, message)

    def __init__(
        self, options: BackendOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        """`workdir`: where the backend may keep state (its undo journal); None, a
        directory of its own under contio's state root, for backends that keep any."""
        self.options = options
        self.experiment = experiment
        """The experiment it serves, for names users see (local-dir's root directory)."""

    @classmethod
    def volume_option(cls, options: BackendOptions) -> tuple[str, str] | None:
        """(option, the host-directory values it allows instead) when `options` make this
        backend hand out Docker volumes, which only containers can mount; else None."""
        return None

    @abstractmethod
    def provision(self) -> None:
        """Make the storage (the first call only; later calls do nothing)."""

    @abstractmethod
    def new_directory(self, label: str) -> Path:
        """A fresh, empty host directory for `label` (one load and the runs on its data)."""

    def data_location(self, name: str) -> DataLocation:
        """Where the container or process `name` keeps its data (a host directory by default)."""
        return HostPath(path=self.new_directory(name))

    def tenant_directory(self, label: str, tenant: str) -> Path:
        """A fresh directory for `label` on storage of tenant `tenant`'s own (paper 004's
        middleware shares a cluster between tenants, each on its own volume)."""
        raise BackendError(f"backend '{self.name}' keeps no storage per tenant")

    @abstractmethod
    def release(self, path: Path) -> None:
        """Remove a directory from `new_directory` once its runs are done."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """What the storage is (path, file system, device, layout), for the results folder."""

    @abstractmethod
    def teardown(self) -> None:
        """Remove everything this backend created (safe to call more than once)."""

    def fault_domain(self) -> tuple[Any, Any]:
        """(cluster, volume) that node-stop events play on; only with
        `capabilities.node_faults` (typed in the backend that has them: importing the
        gluster types here would make every backend depend on gluster)."""
        raise BackendError(f"backend '{self.name}' has no nodes to stop")

    def __enter__(self) -> Self:
        self.provision()
        return self

    def __exit__(self, *exc: object) -> None:
        self.teardown()


class JournaledBackend(StorageBackend):
    """A backend that records what it makes in an undo journal under contio's state
    directory, holding an owner lock there until teardown."""

    def __init__(
        self, options: BackendOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        super().__init__(options, workdir, experiment)
        self.instance = f"{self.name}-{uuid.uuid4().hex[:8]}"
        self.workdir = workdir or real_subdirectory(state_root(), "backends") / self.instance
        self.journal = UndoJournal(self.workdir / "journal.json")
        self._owner = OwnerLock(self.workdir, "backend")
        self._provisioned = False
        self._labels: dict[str, int] = {}

    def provision(self) -> None:
        """Make the storage (first call only); a failure tears down what was half made."""
        if self._provisioned:
            return
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._owner.acquire()  # until teardown: `contio cleanup` must not touch it
        try:
            self.build()
        except BaseException:
            self.teardown()  # a half-built backend leaves nothing behind
            raise
        self._provisioned = True

    @abstractmethod
    def build(self) -> None:
        """Create the storage. Record every created resource in `self.journal` first."""

    @abstractmethod
    def data_root(self) -> Path:
        """The host directory under which data directories are made."""

    def new_directory(self, label: str) -> Path:
        """A fresh, empty directory for `label` under the data root."""
        if not self._provisioned:
            raise BackendError(f"backend '{self.name}': provision() must run before data locations")
        return fresh_directory(self.data_root(), label, self._labels)

    def release(self, path: Path) -> None:
        """Remove a data directory once its runs are done."""
        if self.data_root() in path.parents:
            shutil.rmtree(path, ignore_errors=True)

    def describe(self) -> dict[str, Any]:
        """What the storage is: backend, options and layout (device, file system, mounts)."""
        return {
            "backend": self.name,
            "instance": self.instance,
            "options": self.options.model_dump(mode="json"),
            **self.layout(),
        }

    @abstractmethod
    def layout(self) -> dict[str, Any]:
        """Backend-specific description: devices, file system, mount options, volume layout."""

    def teardown(self) -> None:
        """Remove everything this backend created (safe to call more than once)."""
        self.journal.undo_all()
        self._provisioned = False
        self._owner.release()
        if self.workdir.exists() and not any(self.workdir.iterdir()):
            self.workdir.rmdir()


def fresh_directory(root: Path, label: str, counts: dict[str, int]) -> Path:
    """A new directory `root/label`, or `label-N` for the N-th use of `label` as counted
    in `counts` (one load's data never lands on another's)."""
    count = counts[label] = counts.get(label, 0) + 1
    path = root / (label if count == 1 else f"{label}-{count}")
    path.mkdir(parents=True)
    return path
