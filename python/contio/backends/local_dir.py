"""The local-directory backend: data directories on a file system of this host.

Each load gets a fresh directory under one private root (`contio-<name>-XXXX`)
that the backend makes inside the base directory; teardown removes that root and
nothing else. The root holds its owner lock (`contio.host.owner_lock`, with
contio's owner record) until then, so `contio cleanup` removes the root of a run that
was killed, and no other. In a spec, a relative `path` is relative to the spec's folder.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

from pydantic import field_validator

from contio.backends.interface import BackendOptions, HostProblem, StorageBackend
from contio.errors import BackendError
from contio.host.host_paths import directory_problem
from contio.host.owned_dirs import remove_tree
from contio.host.owner_lock import OwnerLock

PROC_MOUNTS = Path("/proc/mounts")


def _unescape_mount_field(field: str) -> str:
    # /proc/mounts writes space, tab, newline and backslash as octal escapes.
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def mount_of(path: Path, mounts_text: str | None = None) -> dict[str, str]:
    """The mount holding `path`: its mount point, file system type, source device and options."""
    if mounts_text is None:
        mounts_text = PROC_MOUNTS.read_text(encoding="utf-8")
    resolved = path.resolve()
    best: dict[str, str] = {}
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        source, point, fstype, options = (_unescape_mount_field(f) for f in fields[:4])
        mount_point = Path(point)
        inside = resolved == mount_point or mount_point in resolved.parents
        # The last, longest matching entry wins: later mounts stack on earlier ones.
        if inside and len(point) >= len(best.get("mount_point", "")):
            best = {"mount_point": point, "fstype": fstype, "source": source, "options": options}
    return best


class LocalDirOptions(BackendOptions):
    """Options of the `local-dir` backend."""

    path: Path | None = None
    """Base directory for the data directories; None means the system's temp directory."""

    @field_validator("path")
    @classmethod
    def _must_be_directory(cls, value: Path | None) -> Path | None:
        if value is not None and not value.expanduser().is_dir():
            raise ValueError(f"{value} is not an existing directory")
        return value.expanduser().resolve() if value is not None else None


class LocalDirBackend(StorageBackend):
    """Data directories under `path` (default: the system temp directory)."""

    name = "local-dir"
    options_model = LocalDirOptions
    options: LocalDirOptions
    path_options = ("path",)

    @classmethod
    def host_problems(cls, options: BackendOptions) -> list[HostProblem]:
        assert isinstance(options, LocalDirOptions)
        problem = directory_problem(options.path or Path(tempfile.gettempdir()))
        return [("path", problem)] if problem else []

    def __init__(
        self, options: LocalDirOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        # `workdir` is not used: this backend keeps no state outside its private root.
        super().__init__(options, workdir, experiment)
        self.base = (options.path or Path(tempfile.gettempdir())).resolve()
        self._root: Path | None = None
        self._owner: OwnerLock | None = None
        self._count = 0

    @property
    def root(self) -> Path | None:
        """The private directory holding every data directory, once provisioned."""
        return self._root

    def provision(self) -> None:
        """Make the private root under the base directory (first call only)."""
        if self._root is not None:
            return
        self.refuse_host_problems()
        try:
            self._root = Path(tempfile.mkdtemp(prefix=f"contio-{self.experiment}-", dir=self.base))
        except OSError as exc:
            raise BackendError(f"cannot create a data directory in {self.base}: {exc}") from exc
        self._owner = OwnerLock(self._root, "local-dir")
        self._owner.acquire()

    def new_directory(self, label: str) -> Path:
        """A fresh, empty directory named after `label` (a target and workload)."""
        if self._root is None:
            raise BackendError(f"backend '{self.name}': provision() must run before directories")
        self._count += 1
        path = self._root / f"{self._count:04d}-{label}"
        path.mkdir()
        return path

    def release(self, path: Path) -> None:
        """Remove one directory (data of a finished load group)."""
        if self._root is not None and self._root in path.parents:
            remove_tree(path)

    def describe(self) -> dict[str, Any]:
        """Path, file system type, device and free space of the base directory."""
        stat = os.stat(self.base)
        vfs = os.statvfs(self.base)
        return {
            "type": self.name,
            "base": str(self.base),
            "mount": mount_of(self.base),
            "device": f"{os.major(stat.st_dev)}:{os.minor(stat.st_dev)}",
            "block_size": vfs.f_frsize,
            "free_bytes": vfs.f_bavail * vfs.f_frsize,
            "total_bytes": vfs.f_blocks * vfs.f_frsize,
        }

    def teardown(self) -> None:
        """Remove the private root and everything in it."""
        if self._root is not None:
            remove_tree(self._root)
            self._root = None
        if self._owner is not None:
            self._owner.release()
            self._owner = None
