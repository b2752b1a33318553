"""Watching a phase's engine client containers: the start barrier that releases their
run phases together, and the wait until every client is done, failing the cell when a
database server exits first.

The barrier: each client connects, creates its `ready` file and waits for the `go`
file (`startbarrier.ready/go`, docs/engine-interface.md); once every ready file exists
the orchestrator creates `go`, and every engine starts its phase clock within a
millisecond (it polls every ms).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docker.models.containers import Container

from contio.cells.servers import Server, check_servers, exit_code
from contio.errors import CellFailed

#: how often running containers are checked
POLL_S = 0.2


@dataclass(frozen=True)
class Client:
    """An engine client container of a phase."""

    name: str
    container: Container
    ready_file: Path | None = None
    """Its start barrier's ready file (as seen from this host); None: no barrier."""


def release_at_barrier(
    clients: Sequence[Client], go_file: Path, servers: Sequence[Server], timeout_s: float
) -> None:
    """Create `go_file` once every client with a ready file has created it.

    `CellFailed` when a client exits before it gets there, a server exits, or
    `timeout_s` passes.
    """
    deadline = time.monotonic() + timeout_s
    waiting = {c.ready_file: c for c in clients if c.ready_file is not None}
    while waiting:
        for ready in [f for f in waiting if f.exists()]:
            del waiting[ready]
        for client in waiting.values():
            code = exit_code(client.container)
            if code is not None:
                raise CellFailed(
                    f"engine client {client.name} exited with code {code} before the start barrier"
                )
        check_servers(servers, "before the run phase started")
        if waiting and time.monotonic() > deadline:
            raise CellFailed(f"clients not at the start barrier after {timeout_s:.0f}s")
        time.sleep(POLL_S / 4)
    go_file.touch()


def watch(
    clients: Sequence[Container],
    servers: Sequence[Server],
    phase: str,
    timeout_s: float | None = None,
    tick: Callable[[], None] | None = None,
) -> None:
    """Wait until every client exited; `CellFailed` when a server exits first (or after
    `timeout_s`). `tick` is called between checks (the live display)."""
    when = f"during the {phase} phase"
    deadline = time.monotonic() + timeout_s if timeout_s is not None else None
    while any(exit_code(c) is None for c in clients):
        check_servers(servers, when)
        if deadline is not None and time.monotonic() > deadline:
            raise CellFailed(f"the {phase} phase did not end within {timeout_s:.0f}s")
        if tick is not None:
            tick()
        time.sleep(POLL_S)
    # A server that died at the very end still makes the phase suspect.
    check_servers(servers, when)
