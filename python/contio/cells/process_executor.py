"""The `process` runtime for cells: each container is an engine child process on this host.

All containers of a phase start together, each in its own session (so a Ctrl-C at the
terminal reaches contio only), and are watched until every one exits. Meanwhile the
engines' status lines (`-s`, one a second) give the cell's ops/s so far for the live
display; that text is read for display only, never for results. With a metrics file,
the host and each child (from /proc) are sampled every second while they run. On an
interrupt the signal is forwarded to every child, they get `stop_grace_seconds` to
write their result documents, then whatever is left is killed. No child outlives
`run_phase`, nor a SIGKILLed contio (`CONTIO_ENGINE_PARENT`: the kernel kills the engines
with their parent). Database targets have no server here: specs pairing them with this
runtime are refused before anything runs (`contio.experiment.cell_checks`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import Any

from contio.cells.executor import ContainerPhase, DataSession, RunContext, StatusCallback
from contio.cells.progress import PROGRESS_ENV, ops_per_sec_so_far, progress_file
from contio.containers.data_location import DataLocation, HostPath
from contio.errors import Interrupted, UsageError
from contio.experiment.matrix import Member
from contio.experiment.spec import ExperimentSpec
from contio.qos.io_controls import IoController
from contio.samplers.phase import client_source
from contio.samplers.process import ProcessCounters
from contio.samplers.series import Sampler
from contio.signals import interrupts_deferred

POLL_SECONDS = 0.25
PARENT_ENV = "CONTIO_ENGINE_PARENT"
"""Names the process an engine must not outlive (`crates/engine/src/parent.rs`)."""


class ProcessCellExecutor:
    """Runs a phase's containers as local child processes."""

    name = "process"
    barrier = False

    def __init__(self, stop_grace_seconds: float = 10.0):
        self.stop_grace_seconds = stop_grace_seconds
        self.applied: dict[int, dict[str, Any]] = {}
        """Per container of the last phase: the block I/O controls `io.attach` applied."""

    @classmethod
    def for_run(cls, spec: ExperimentSpec, context: RunContext) -> ProcessCellExecutor:
        """The executor of a `contio run` (`contio.run.runner`)."""
        return cls(spec.runtime.stop_grace_seconds)

    def engine_data_dir(self, location: DataLocation) -> Path:
        if not isinstance(location, HostPath):
            raise UsageError("runtime 'process' needs host directories, not Docker volumes")
        return location.path

    def open_data(self, members: Sequence[Member], data: Sequence[DataLocation]) -> DataSession:
        if any(m.database for m in members):
            raise UsageError("database targets need runtime 'docker'")
        return DataSession([None] * len(members))

    def close_data(self, session: DataSession) -> None:
        return None

    def close(self) -> None:
        return None

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
        """Start every container, wait for all; returns exit codes (negative: a signal)."""
        children: list[subprocess.Popen[bytes]] = []
        sampler: Sampler | None = None
        self.applied = {}
        try:
            with ExitStack() as files:
                # Every group's controls first, then the engines, each started inside its
                # group: no I/O of the phase runs before or outside its controls.
                for container in containers:
                    if container.io_group is not None:
                        self.applied[container.container] = io.prepare(
                            container.io_group, container.io_device, container.container
                        )
                for container in containers:
                    out = files.enter_context(container.stdout.open("xb"))
                    err = files.enter_context(container.stderr.open("xb"))
                    argv = [str(engine), *container.args]
                    options: dict[str, Any] = {
                        "stdin": subprocess.DEVNULL,
                        "stdout": out,
                        "stderr": err,
                        "start_new_session": True,
                        "env": engine_environment(container),
                    }
                    # Held until the child is in `children`, so an interrupt always
                    # finds every started engine to stop.
                    with interrupts_deferred():
                        if container.io_group is not None:
                            child = io.popen(container.container, argv, **options)
                        else:
                            child = subprocess.Popen(argv, **options)
                        children.append(child)
            if metrics is not None:
                readers = {
                    client_source(c.container): ProcessCounters(child.pid)
                    for c, child in zip(containers, children, strict=True)
                }
                sampler = Sampler({}, metrics, readers=readers)
                sampler.start()
            return self._wait(children, containers, on_status)
        except Interrupted as exc:
            self._stop(children, exc.signum)
            raise
        except KeyboardInterrupt:
            self._stop(children, signal.SIGINT)
            raise
        except BaseException:
            for child in children:
                _kill(child)
            raise
        finally:
            if sampler is not None:
                sampler.stop()

    def _wait(
        self,
        children: list[subprocess.Popen[bytes]],
        containers: Sequence[ContainerPhase],
        on_status: StatusCallback | None,
    ) -> list[int]:
        while running := [child for child in children if child.poll() is None]:
            if on_status is not None:
                rates = [ops_per_sec_so_far(progress_file(c.json)) for c in containers]
                on_status(sum(r for r in rates if r is not None))
            # Wait on a running child rather than sleeping: the phase ends as soon as
            # its last child exits (a fixed sleep added up to POLL_SECONDS to every
            # phase, half the time of a short repetition).
            with suppress(subprocess.TimeoutExpired):
                running[-1].wait(timeout=POLL_SECONDS)
        return [child.returncode for child in children]

    def _stop(self, children: list[subprocess.Popen[bytes]], signum: int) -> None:
        """Forward `signum` to every child, wait up to the grace period, then kill."""
        try:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signum)
            deadline = time.monotonic() + self.stop_grace_seconds
            for child in children:
                try:
                    child.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    _kill(child)
        finally:
            # A second interrupt while waiting: stop waiting, but still leave no child.
            for child in children:
                _kill(child)


def engine_environment(container: ContainerPhase | None = None) -> dict[str, str]:
    """The engines' environment: ours, and this process as the parent they must not
    outlive. They run in their own sessions, so without it a SIGKILLed contio would leave
    them running (the engine then asks for SIGKILL when its parent exits; this is forked
    from the main thread, as the kernel's parent-death signal needs)."""
    env = {**os.environ, PARENT_ENV: str(os.getpid())}
    if container is not None:
        env[PROGRESS_ENV] = str(progress_file(container.json))
    return env


def _kill(child: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole session (it leads its own process group) and reap it."""
    # Until reaped, the pid (and the group it leads) cannot have been reused.
    if child.poll() is None:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
    child.wait()
