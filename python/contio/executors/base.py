"""The interface between the runner and a runtime: run one phase of one cell.

A phase runs one engine per container at once and waits for all of them. The runner
builds the engine arguments (`contio.workload_kinds`) and the output paths; the
executor starts, watches, controls (`contio.io_controls`) and stops the containers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from contio.io_controls import IoController
from contio.spec_parts import IoGroupControls

StatusCallback = Callable[[float], None]
"""Called with the cell's aggregate ops/s so far, about once a second."""


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


class CellExecutor(Protocol):
    """Runs the containers of one phase together; returns their exit codes in order."""

    name: str
    applied: dict[int, dict[str, Any]]
    """Per container of the last phase: what `io.attach` applied (for the results)."""

    def run_phase(
        self,
        engine: Path,
        containers: Sequence[ContainerPhase],
        io: IoController,
        on_status: StatusCallback | None = None,
    ) -> list[int]: ...
