"""The interface between the runner and a runtime: run one phase of one cell.

A phase runs one engine per container at once and waits for all of them. The runner
builds the engine arguments (`contio.workload.kinds`) and the output paths; the
executor starts, watches, controls (`contio.qos.io_controls`), samples and stops the
containers. Database servers (docker) are started by the executor when a load group's
data is placed and kept until the runner releases it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from contio.cells.bindings import EngineBinding
from contio.containers.data_location import DataLocation
from contio.experiment.matrix import Member
from contio.experiment.spec import ExperimentSpec
from contio.qos.control_spec import IoGroupControls
from contio.qos.io_controls import IoController
from contio.targets.base import TargetOptions

StatusCallback = Callable[[float], None]
"""Called with the cell's aggregate ops/s so far, about once a second."""


class ImageSetup(Protocol):
    """The images of a run's docker cells, made ready before anything runs
    (`contio.run.docker_preparation.DockerSetup`)."""

    engine_image: str
    """The id of `contio/engine`."""

    def target_options(self, spec: ExperimentSpec) -> dict[str, TargetOptions]:
        """How to run each database target of `spec` (image, cache mode, limits)."""
        ...


@dataclass(frozen=True)
class RunContext:
    """What an executor of a run needs besides the spec (`for_run(spec, context)`)."""

    experiment: str
    """Labels every Docker resource of the run (the results folder and session)."""
    docker: ImageSetup | None
    """The images, when the run has docker cells."""


@dataclass(frozen=True)
class ContainerPhase:
    """One container's engine invocation in a phase."""

    container: int
    """1-based position in the cell (io_controls groups follow this order)."""
    args: list[str]
    """Engine arguments after the binary."""
    json: Path
    stdout: Path
    stderr: Path
    io_group: IoGroupControls | None = None
    io_device: str | None = None
    """What `io_group`'s limits apply to: a device node or a path on the disk."""
    data: DataLocation | None = None
    """The engine's own data (embedded targets, file workloads); None when its data
    lives with a database server."""
    inputs: tuple[Path, ...] = ()
    """Files the engine reads besides its data (workload files)."""
    ready_file: Path | None = None
    """Its start barrier's ready file (run phases of executors with `barrier`)."""
    memory_limit: str | None = None
    """The engine container's memory limit (an embedded engine's `target_options`), so
    its page cache is bounded like a database server's; containers only."""


@dataclass
class DataSession:
    """A load group's data as a runtime holds it while the runner uses it: the database
    servers on it (docker), volumes it made."""

    bindings: list[EngineBinding | None]
    """Per container: the binding that reaches its database server, or None when its
    engine keeps its own data."""
    handle: object = None
    """What the executor needs to watch and remove them (its own type; None: nothing)."""
    description: list[dict[str, Any]] = field(default_factory=list)
    """What runs, for the results folder (`servers.json`)."""


class CellExecutor(Protocol):
    """Runs the containers of one phase together; returns their exit codes in order."""

    name: str
    applied: dict[int, dict[str, Any]]
    """Per container of the last phase: what `io.attach` applied (for the results)."""
    barrier: bool
    """Whether run phases start together at the engine's start barrier (`ready_file`)."""

    def engine_data_dir(self, location: DataLocation) -> Path:
        """Where an engine of this runtime finds the data at `location`."""
        ...

    def open_data(self, members: Sequence[Member], data: Sequence[DataLocation]) -> DataSession:
        """Make a load group's data usable: start the database servers of the members that
        need one on their data, ready and with their schema (docker); `CellFailed` when
        one does not come up."""
        ...

    def close_data(self, session: DataSession) -> None:
        """Remove the session's servers and volumes (the backend keeps its directories)."""
        ...

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
        """Run every container together and return their exit codes. `metrics`: sample
        the host and each container every second into this file. `go_file`: release
        the containers' start barrier by creating it. `contio.errors.CellFailed` when a
        server exits meanwhile."""
        ...

    def close(self) -> None:
        """Remove whatever the executor still holds (end of the experiment)."""
        ...
