"""`path`: an existing mount the user names (CephFS, Lustre, BeeGFS, a SAN volume, …).

Used as it is: contio makes one private directory under it for its data directories,
describes the mount from /proc/self/mountinfo, and at teardown removes only that
private directory — never the mount or anything else on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contio.backends.interface import BackendOptions, HostProblem, JournaledBackend
from contio.host import mountinfo
from contio.host.host_paths import directory_problem


class PathOptions(BackendOptions):
    """Options of the `path` backend."""

    path: Path
    require_fstype: str | None = None  # e.g. "ceph" or "lustre": refuse anything else


class PathBackend(JournaledBackend):
    """Data directories under an existing path, on whatever file system holds it."""

    name = "path"
    options_model = PathOptions
    options: PathOptions
    path_options = ("path",)

    @classmethod
    def host_problems(cls, options: BackendOptions) -> list[HostProblem]:
        assert isinstance(options, PathOptions)
        base = options.path
        problem = directory_problem(base)
        if problem:
            return [("path", problem)]
        mount = mountinfo.mount_of(base)
        wanted = options.require_fstype
        if wanted and (mount is None or mount.fstype != wanted):
            found = mount.fstype if mount else "unknown"
            return [("require_fstype", f"{base} is on '{found}', not '{wanted}'")]
        return []

    def __init__(
        self, options: PathOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        super().__init__(options, workdir, experiment)
        self._root = options.path / f"contio-{self.instance}"

    def build(self) -> None:
        self.refuse_host_problems()
        self._root.mkdir()
        self.journal.record("dir", path=str(self._root))

    def data_root(self) -> Path:
        return self._root

    def layout(self) -> dict[str, Any]:
        mount = mountinfo.mount_of(self.options.path)
        return {
            "path": str(self.options.path),
            "mount": mount.as_dict() if mount else None,
            "fstype": mount.fstype if mount else None,
        }
