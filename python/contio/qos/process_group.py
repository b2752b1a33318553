"""A cgroup for a group of local processes: paper 004's VNode on one machine
(docs/papers.md).

`ProcessGroup.create("vnode1")` makes `<blkio root>/contio/vnode1` (v1) or
`<unified root>/contio/vnode1` with the `io` controller enabled (v2). Processes join
with `add(pid)`, or start inside it with `popen(argv)`: the child writes its own pid
into `cgroup.procs` between fork and exec, so none of its I/O escapes the group.
`remove()` moves any processes left back to the root cgroup and deletes the
directory (a cgroup with members cannot be removed).
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from contio.errors import QosConfigError, QosError
from contio.qos.hierarchy import Cgroup, detect

PARENT = "contio"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _enable_io(directory: Path) -> None:
    """v2: let the children of `directory` use the io controller."""
    try:
        (directory / "cgroup.subtree_control").write_text("+io")
    except OSError as exc:
        raise QosError(f"cannot enable the io controller under {directory}: {exc}") from exc


class ProcessGroup:
    """A named cgroup under `<root>/contio/` for local processes."""

    def __init__(self, cgroup: Cgroup, root: Path):
        self.cgroup = cgroup
        self.root = root

    @property
    def name(self) -> str:
        return self.cgroup.path.name

    @classmethod
    def create(cls, name: str, mount_text: str | None = None) -> ProcessGroup:
        """Make the cgroup; an existing one of the same name is refused (not ours)."""
        if not _NAME.match(name):
            raise QosConfigError(
                "name", f"{name!r} is not a valid group name; allowed: letters, digits, "
                "'_', '.', '-', starting with a letter or digit, at most 64 characters",
            )  # fmt: skip
        version, root = detect(mount_text)
        parent = root / PARENT
        parent.mkdir(exist_ok=True)
        if version == "v2":
            _enable_io(root)
            _enable_io(parent)
        path = parent / name
        try:
            path.mkdir()
        except FileExistsError:
            raise QosError(
                f"cgroup {path} already exists; remove it (rmdir) if no run is using it"
            ) from None
        return cls(Cgroup(version, path), root)

    def add(self, pid: int) -> None:
        """Move process `pid` (all its threads) into the group."""
        try:
            self.cgroup.procs_file.write_text(str(pid))
        except ProcessLookupError:
            raise QosError(f"process {pid} does not exist") from None
        except OSError as exc:
            raise QosError(f"cannot move {pid} into {self.cgroup.path}: {exc.strerror}") from exc

    def popen(self, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen:
        """Start `argv` already inside the group (the child joins before exec)."""
        procs = str(self.cgroup.procs_file)

        def join() -> None:  # runs in the child between fork and exec
            with open(procs, "w") as fh:
                fh.write(str(os.getpid()))

        return subprocess.Popen(list(argv), preexec_fn=join, **kwargs)  # noqa: PLW1509

    def pids(self) -> list[int]:
        return self.cgroup.pids()

    def remove(self) -> None:
        """Move leftover processes to the root cgroup and delete the group's directory."""
        if not self.cgroup.path.exists():
            return
        for pid in self.cgroup.pids():
            with contextlib.suppress(ProcessLookupError):  # exited meanwhile
                (self.root / "cgroup.procs").write_text(str(pid))
        self.cgroup.path.rmdir()
        with contextlib.suppress(OSError):  # the shared parent goes when no group is left
            self.cgroup.path.parent.rmdir()

    def __enter__(self) -> ProcessGroup:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
