"""`nfs`: an NFS export (sync or async), mounted through Docker's local volume driver
(`type=nfs`) or on the host — the two set-ups paper 002 (docs/papers.md) compares
with a plain Docker volume.

`server: local` exports `export_path` from this host's kernel NFS server (an
/etc/exports.d file, `exportfs -ra`); any other value names an existing server whose
export is used as it is. Containers get one directory each under the export. Kernels
without NFS are detected before anything is made, with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from contio.backends import nfs_config, nfs_support
from contio.backends.interface import BackendOptions, Capabilities, JournaledBackend
from contio.containers.data_location import DataLocation, DockerVolume, HostPath
from contio.errors import BackendOptionError, BackendUnavailableError
from contio.host import command, mountinfo
from contio.host.undo_journal import Entry

EXPORTS_DIR = Path("/etc/exports.d")


class NfsOptions(BackendOptions):
    """Options of the `nfs` backend."""

    server: str = Field("local", pattern=r"^[A-Za-z0-9][A-Za-z0-9.:-]*$")
    export_path: Path
    export_mode: Literal["sync", "async"] = "sync"
    export_options: list[str] = Field(
        default_factory=lambda: ["rw", "no_root_squash", "no_subtree_check"]
    )
    clients: str = Field("*", pattern=r"^[A-Za-z0-9*.:/_-]+$")
    mount_via: Literal["docker-volume", "host"] = "docker-volume"
    mount_options: list[str] = Field(default_factory=lambda: ["nfsvers=4.2", "hard"])

    @field_validator("export_options")
    @classmethod
    def _exports(cls, value: list[str]) -> list[str]:
        return nfs_config.check_export_options(value)

    @field_validator("mount_options")
    @classmethod
    def _mounts(cls, value: list[str]) -> list[str]:
        return nfs_config.check_mount_options(value)

    @model_validator(mode="after")
    def _absolute(self) -> NfsOptions:
        if not self.export_path.is_absolute():
            raise ValueError("'export_path' must be an absolute path on the server")
        return self

    def address(self) -> str:
        """The server address clients mount from."""
        return "127.0.0.1" if self.server == "local" else self.server


class NfsBackend(JournaledBackend):
    """Directories on an NFS export, as Docker NFS volumes or under a host mount."""

    name = "nfs"
    options_model = NfsOptions
    options: NfsOptions
    capabilities = Capabilities(docker_volumes=True)

    @classmethod
    def volume_option(cls, options: BackendOptions) -> tuple[str, str] | None:
        # Docker volumes unless told not to (the default `mount_via`).
        assert isinstance(options, NfsOptions)
        return ("mount_via", "host") if options.mount_via == "docker-volume" else None

    def __init__(
        self, options: NfsOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        super().__init__(options, workdir, experiment)
        self._mount = self.workdir / "mnt"
        self.subdir = f"contio-{self.instance}"

    def export_line(self) -> str:
        """The /etc/exports line for `server: local`."""
        opts = self.options
        return nfs_config.export_line(
            opts.export_path, opts.clients, opts.export_mode, opts.export_options
        )

    def check_support(self) -> None:
        """Stop with the reason when this kernel cannot mount (or serve) NFS."""
        roles = ["client", "server"] if self.options.server == "local" else ["client"]
        for role in roles:
            support = nfs_support.probe(role)
            if not support.available:
                raise BackendUnavailableError(f"backend 'nfs' cannot run here: {support.reason}")

    def build(self) -> None:
        self.check_support()
        opts = self.options
        if opts.server == "local":
            if not opts.export_path.is_dir():
                raise BackendOptionError(
                    self.name, "export_path", f"{opts.export_path} is not a directory"
                )
            command.require_program("exportfs", "nfs-kernel-server")
            exports = EXPORTS_DIR / f"{self.subdir}.exports"
            self.journal.record("nfs-export", path=str(exports))
            EXPORTS_DIR.mkdir(exist_ok=True)
            exports.write_text(self.export_line() + "\n", encoding="utf-8")
            command.run(["exportfs", "-ra"])
        command.require_program("mount.nfs", "nfs-common")
        # The host mount is where per-container directories are made and removed, also when
        # containers mount the export themselves through Docker's volume driver.
        self._mount.mkdir(parents=True, exist_ok=True)
        self.journal.record("dir", path=str(self._mount))
        command.run(self.host_mount_argv())
        self.journal.record("mount", target=str(self._mount))
        (self._mount / self.subdir).mkdir()
        self.journal.record("dir", path=str(self._mount / self.subdir))

    def host_mount_argv(self) -> list[str]:
        """`mount -t nfs` of the export on this host."""
        opts = self.options
        return nfs_config.host_mount_argv(
            opts.address(), str(opts.export_path), self._mount, opts.mount_options
        )

    def data_root(self) -> Path:
        return self._mount / self.subdir

    def volume_definition(self, name: str) -> DockerVolume:
        """The Docker volume that mounts `name`'s directory of the export over NFS."""
        opts = self.options
        export = f"{opts.export_path}/{self.subdir}/{name}"
        return DockerVolume(
            name=f"contio-{self.instance}-{name}",
            driver_opts=nfs_config.volume_driver_opts(opts.address(), export, opts.mount_options),
            labels={"contio.backend": self.instance},
        )

    def data_location(self, name: str) -> DataLocation:
        path = self.new_directory(name)
        if self.options.mount_via == "host":
            return HostPath(path=path)
        return self.volume_definition(path.name)

    def layout(self) -> dict[str, Any]:
        mount = mountinfo.mount_of(self._mount) if self._mount.exists() else None
        return {
            "server": self.options.address(),
            "export_line": self.export_line() if self.options.server == "local" else None,
            "export_mode": self.options.export_mode,
            "mount_via": self.options.mount_via,
            "mount_options": self.options.mount_options,
            "host_mount": mount.as_dict() if mount else None,
        }


def undo_export(entry: Entry) -> None:
    """Journal undo: remove contio's exports file and re-export without it."""
    Path(entry["path"]).unlink(missing_ok=True)
    command.run(["exportfs", "-ra"])
