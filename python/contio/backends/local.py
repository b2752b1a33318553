"""`local`: storage on this host — a directory, a device (formatted XFS or ext4 on request),
or a Docker named volume.

- `mode: directory` — data directories under an existing directory `path`, bind-mounted
  into containers.
- `mode: device` — a block device (`device: /dev/sdX`, or `device: loop` for a loop device
  over a sparse file of `loop_size`), formatted with `format` when given, mounted by contio.
  A device of the user's is formatted only when it is empty and unused
  (`device_checks`), or, if it holds a file system or partition table, only with
  `erase_existing: true`; teardown erases only the file system contio made (its UUID).
  A loop device can be made a slow device (`device_bandwidth: 200MB/s`, and/or
  `device_read_bps`, `device_write_bps`, `device_iops`): its backing file is then served
  through a FUSE file system paced to those device-wide caps (`slow_device`), so that
  everything using the device shares one slow disk.
- `mode: docker-volume` — one Docker named volume (local driver) per container; the
  Docker runtime creates and removes it.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from contio.backends.interface import BackendOptions, Capabilities, HostProblem, JournaledBackend
from contio.containers.data_location import DataLocation, DockerVolume, HostPath
from contio.engine.invocation import find_engine
from contio.errors import BackendError, QosConfigError
from contio.host import (
    block_device,
    device_checks,
    filesystem,
    host_paths,
    loop_device,
    mountinfo,
    slow_device,
)
from contio.qos.limits import ALLOWED_RATE, parse_rate

DEVICE_CAPS = ("device_bandwidth", "device_read_bps", "device_write_bps", "device_iops")
"""The slow-device options, in `slow_device.DeviceCaps` order."""


class LocalOptions(BackendOptions):
    """Options of the `local` backend."""

    mode: Literal["directory", "device", "docker-volume"] = "directory"
    path: Path | None = None
    device: str | None = None
    loop_size: str = "4GiB"
    loop_direct_io: bool = False
    """`device: loop` only: the loop device reads and writes its backing file with
    O_DIRECT (no second page cache), so its I/O reaches the disk below as a real
    device's would; block I/O weights need that to have a bottleneck to divide."""
    device_bandwidth: int | str | None = None
    """`device: loop` only: cap reads and writes of the whole device together at this
    many bytes/s (`200MB/s`, `50MiB/s`, an integer): a slow device (module docstring)."""
    device_read_bps: int | str | None = None
    """`device: loop` only: cap the device's reads (bytes/s)."""
    device_write_bps: int | str | None = None
    """`device: loop` only: cap the device's writes (bytes/s)."""
    device_iops: int | str | None = None
    """`device: loop` only: cap the device's requests per second (reads and writes)."""
    format: Literal["xfs", "ext4"] | None = None
    erase_existing: bool = False
    """A device of the user's only: format it even though it holds a file system or a
    partition table (everything on it is lost). Never lifts the refusal of a device
    in use (mounted, held, partitioned, swap)."""
    mkfs_options: list[str] = Field(default_factory=list)
    mount_options: list[str] = Field(default_factory=list)

    @field_validator("mkfs_options")
    @classmethod
    def _no_uuid(cls, value: list[str]) -> list[str]:
        problem = filesystem.uuid_option_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("loop_size")
    @classmethod
    def _size(cls, value: str) -> str:
        filesystem.parse_size(value)
        return value

    @field_validator(*DEVICE_CAPS)
    @classmethod
    def _rate(cls, value: int | str | None, info: ValidationInfo) -> int | None:
        # Kept as integers per second, so results record the cap the daemon applied.
        if value is None:
            return None
        try:
            return parse_rate(str(info.field_name), value)
        except QosConfigError:
            raise ValueError(f"must be {ALLOWED_RATE}, not {value!r}") from None

    @property
    def device_caps(self) -> slow_device.DeviceCaps:
        """The slow-device caps (empty: the device is not slowed)."""
        caps = [getattr(self, name) for name in DEVICE_CAPS]
        return slow_device.DeviceCaps(*caps)

    @model_validator(mode="after")
    def _mode_fields(self) -> LocalOptions:
        if self.mode == "directory" and self.path is None:
            raise ValueError("mode 'directory' needs 'path' (an existing directory)")
        if self.mode == "device":
            if self.device is None:
                raise ValueError("mode 'device' needs 'device' (a block device, or 'loop')")
            if self.device == "loop" and self.format is None:
                raise ValueError("device 'loop' is a new empty disk: set 'format' to xfs or ext4")
            small = self.format and filesystem.too_small(
                self.format, filesystem.parse_size(self.loop_size)
            )
            if self.device == "loop" and small:
                raise ValueError(f"{small}; 'loop_size' is {self.loop_size}")
        if self.erase_existing and (self.device in (None, "loop") or self.format is None):
            raise ValueError(
                "'erase_existing' lets 'format' erase a device you name (mode 'device', "
                f"a /dev path, and 'format'), not {self._where()}"
                + ("" if self.format else " without 'format'")
            )
        if self.loop_direct_io and self.device != "loop":
            raise ValueError("'loop_direct_io' applies to 'device: loop' only")
        for name in DEVICE_CAPS:
            if getattr(self, name) is not None and self.device != "loop":
                raise ValueError(
                    f"'{name}' makes a loop device slow: it needs mode 'device' with "
                    f"device 'loop', not {self._where()}"
                )
        if self.mode != "device" and (self.device or self.format or self.mount_options):
            raise ValueError("'device', 'format' and 'mount_options' apply to mode 'device' only")
        if self.mode != "directory" and self.path is not None:
            raise ValueError("'path' applies to mode 'directory' only")
        return self

    def _where(self) -> str:
        return f"device '{self.device}'" if self.mode == "device" else f"mode '{self.mode}'"


class LocalBackend(JournaledBackend):
    """A directory, a (loop) device or Docker named volumes on this host."""

    name = "local"
    options_model = LocalOptions
    options: LocalOptions
    capabilities = Capabilities(docker_volumes=True)
    path_options = ("path",)

    @classmethod
    def host_problems(cls, options: BackendOptions) -> list[HostProblem]:
        assert isinstance(options, LocalOptions)
        if options.mode == "directory" and options.path is not None:
            problem = host_paths.directory_problem(options.path)
            return [("path", problem)] if problem else []
        if options.mode != "device" or options.device in (None, "loop"):
            return []
        device = str(options.device)
        if options.format is None:
            problem = device_checks.mount_problem(device)
            return [("device", problem)] if problem else []
        problem = device_checks.format_problem(device, options.erase_existing)
        if problem:
            return [("device", problem)]
        small = device_checks.size_problem(device, options.format)
        return [("format", small)] if small else []

    @classmethod
    def plan_notes(cls, options: BackendOptions) -> list[str]:
        assert isinstance(options, LocalOptions)
        if options.mode != "device" or options.device in (None, "loop") or not options.format:
            return []
        return [device_checks.erase_note(str(options.device), options.format)]

    @classmethod
    def volume_option(cls, options: BackendOptions) -> tuple[str, str] | None:
        assert isinstance(options, LocalOptions)
        return ("mode", "directory, device") if options.mode == "docker-volume" else None

    def __init__(
        self, options: LocalOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        super().__init__(options, workdir, experiment)
        self._device: str | None = None
        self._root: Path | None = None
        self._slow: slow_device.SlowDevice | None = None

    def build(self) -> None:
        opts = self.options
        if opts.mode == "directory":
            self._provision_directory(opts.path)  # type: ignore[arg-type]
        elif opts.mode == "device":
            self._provision_device()

    def _provision_directory(self, base: Path) -> None:
        self.refuse_host_problems()
        self._root = base.resolve() / f"contio-{self.instance}"
        self._root.mkdir()
        self.journal.record("dir", path=str(self._root))

    def _provision_device(self) -> None:
        opts = self.options
        if opts.device == "loop":
            image = self.workdir / "disk.img"
            size = filesystem.parse_size(opts.loop_size)
            loop_device.make_image(image, size, self.journal)
            if not opts.device_caps.empty:
                # The loop device reads and writes the image through the paced FUSE file.
                slow = slow_device.serve(
                    find_engine(), image, self.workdir / "slowdev", opts.device_caps, self.journal
                )
                self._slow, image = slow, slow.file
            device = loop_device.attach_file(image, self.journal, direct_io=opts.loop_direct_io)
        else:
            self.refuse_host_problems()  # again: the device may have changed since the plan
            device = str(opts.device)
        self._device = device
        if opts.format:
            made = str(uuid.uuid4())
            if opts.device != "loop":
                # Recorded first: teardown (or cleanup after a crash) erases the file
                # system with this UUID, and nothing else, from the user's device.
                self.journal.record("fs-signature", device=device, type=opts.format, uuid=made)
            filesystem.make_filesystem(
                opts.format, device, opts.mkfs_options, uuid=made, force=opts.erase_existing
            )
        self._root = self.workdir / "mnt"
        filesystem.mount(device, self._root, self.journal, opts.format, opts.mount_options)

    def data_root(self) -> Path:
        if self._root is None:
            raise BackendError(
                "mode 'docker-volume' hands out Docker volumes, not host directories"
            )
        return self._root

    def data_location(self, name: str) -> DataLocation:
        if self.options.mode == "docker-volume":
            return DockerVolume(
                name=f"contio-{self.instance}-{name}",
                labels={"contio.backend": self.instance},
            )
        return HostPath(path=self.new_directory(name))

    def layout(self) -> dict[str, Any]:
        info: dict[str, Any] = {"mode": self.options.mode}
        if self._root is not None:
            info["data_root"] = str(self._root)
            mount = mountinfo.mount_of(self._root)
            info["mount"] = mount.as_dict() if mount else None
        if self._device is not None:
            info["device"] = block_device.describe(self._device)
            info["formatted_by_contio"] = self.options.format
        if self._slow is not None:
            info["slow_device"] = self._slow.describe()
        if self.options.mode == "docker-volume":
            info["volume_driver"] = "local"
        return info
