"""Which brick processes serve which volume on a storage node: VNode Sync's handle.

Each tenant's data lives in its own Gluster volume, so every brick process (`glusterfsd`)
serves exactly one tenant, and putting it in the tenant's cgroup controls that tenant's
I/O on the node. glusterd starts a brick as

    glusterfsd -s HOST --volfile-id VOLUME.HOST.BRICK-PATH-DASHED … --brick-name PATH …

so `/proc/PID/cmdline` says the volume and the node (HOST is the node's address). On the
one-machine cluster every node's bricks are visible in the same /proc, hence the filter
by address. Brick multiplexing (`cluster.brick-multiplex`, off by default) would put
several volumes in one process and is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from contio.errors import MiddlewareError


@dataclass(frozen=True)
class BrickProcess:
    """One running brick: its process, volume, node address and brick path."""

    pid: int
    volume: str
    host: str
    brick: str


def parse_brick_argv(pid: int, argv: Sequence[str]) -> BrickProcess | None:
    """The brick a `glusterfsd` command line serves; None for any other process."""
    if not argv or Path(argv[0]).name != "glusterfsd":
        return None
    options = _options(argv[1:])
    if "--brick-mux" in argv:
        raise MiddlewareError(
            f"brick process {pid} multiplexes bricks (cluster.brick-multiplex on): a brick "
            "process must serve one volume for per-tenant control; turn it off"
        )
    host, volfile_id = options.get("-s"), options.get("--volfile-id")
    brick = options.get("--brick-name")
    marker = f".{host}."
    if not host or not volfile_id or not brick or marker not in volfile_id:
        return None
    volume = volfile_id.split(marker, 1)[0]
    return BrickProcess(pid, volume, host, brick)


def _options(words: Sequence[str]) -> dict[str, str]:
    values = {}
    for i, word in enumerate(words[:-1]):
        if word.startswith("-"):
            values[word] = words[i + 1]
    return values


def brick_processes(host: str, proc: Path = Path("/proc")) -> list[BrickProcess]:
    """The bricks running for node `host` (its address), from `proc`."""
    found = []
    for entry in _pid_dirs(proc):
        try:
            raw = (entry / "cmdline").read_bytes()
        except OSError:  # exited while we looked
            continue
        argv = [w.decode(errors="replace") for w in raw.split(b"\0") if w]
        brick = parse_brick_argv(int(entry.name), argv)
        if brick is not None and brick.host == host:
            found.append(brick)
    return sorted(found, key=lambda b: (b.volume, b.brick))


def _pid_dirs(proc: Path) -> Iterable[Path]:
    with os.scandir(proc) as entries:
        for entry in entries:
            if entry.name.isdigit():
                yield Path(entry.path)
