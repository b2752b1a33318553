"""Block I/O controls (the `io_controls` factor) as the runner sees them: one interface.

Writing cgroup files (v1 `blkio.throttle.*` and `blkio.bfq.weight`, v2 `io.max` and
`io.weight`) belongs to `contio.qos`; `contio.qos.io_groups` builds the groups of a run on
it. The runner only asks a controller whether it can apply a control set here,
attaches each container's process to its group, and releases everything at the end.
`NoIoController` is for hosts without a block I/O cgroup hierarchy: it applies
nothing and says why, so cells that need controls are skipped with that reason.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Any, Protocol

from contio.qos.control_spec import IoControlSet, IoGroupControls
from contio.qos.io_groups import CgroupIoController


class IoController(Protocol):
    """Applies block I/O limits to a cell's processes."""

    @property
    def mechanism(self) -> str:
        """How limits are applied (`cgroup-v1 blkio.throttle`, …), recorded with the results."""
        ...

    def unavailable_reason(self, controls: IoControlSet, device: str | None = None) -> str | None:
        """None if `controls` can be applied on this host (to `device`, a device node or
        a path on the disk, when known), else why not."""
        ...

    def prepare(
        self, group: IoGroupControls, device: str | None, position: int = 1
    ) -> dict[str, Any]:
        """Make group `position` with `group`'s limits on `device`'s disk, before any
        process of the phase starts; returns what was applied (mechanism, values,
        notes), for the results."""
        ...

    def popen(self, position: int, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen:
        """Start `argv` already inside group `position` (prepared first)."""
        ...

    def release(self) -> None:
        """Remove every group this controller made."""
        ...


class NoIoController:
    """The stand-in: runs uncontrolled cells, and names why controlled ones cannot run."""

    mechanism = "none"

    def __init__(self, reason: str):
        self.reason = reason

    def unavailable_reason(self, controls: IoControlSet, device: str | None = None) -> str | None:
        return None if controls.empty else self.reason

    def prepare(
        self, group: IoGroupControls, device: str | None, position: int = 1
    ) -> dict[str, Any]:
        raise RuntimeError(self.reason)  # the runner skips cells with groups before this

    def popen(self, position: int, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen:
        raise RuntimeError(self.reason)

    def release(self) -> None:
        return None


def process_controller() -> IoController:
    """The controller for local process groups (paper 004's VNodes, docs/papers.md):
    cgroups, written by `contio.qos`."""
    controller = CgroupIoController()
    if controller.version is None:
        return NoIoController(controller.unavailable_reason(IoControlSet(groups=[{}])) or "")
    return controller
