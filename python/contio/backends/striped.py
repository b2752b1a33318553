"""`striped`: one file system striped over N devices.

Where the kernel has device-mapper: LVM physical volumes, one striped logical volume
(`lvcreate -i N -I stripe_size`), XFS, mounted — the stack of paper 003
(docs/papers.md). Where it has not, the kernel-native alternative: btrfs with
RAID0 data and metadata over the N devices. `method: auto` picks by probing, and the
description records which stack was used and why.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from contio.backends.interface import BackendOptions, HostProblem, JournaledBackend
from contio.backends.striping_commands import (
    BTRFS_STRIPE_BYTES,
    btrfs_raid0_argv,
    lvm_argvs,
    lvm_device_path,
)
from contio.errors import BackendUnavailableError
from contio.host import (
    block_device,
    command,
    device_checks,
    device_mapper,
    filesystem,
    loop_device,
    mountinfo,
)
from contio.yaml_input import Integer

DEFAULT_STRIPE = "64KiB"


class StripedOptions(BackendOptions):
    """Options of the `striped` backend."""

    method: Literal["auto", "lvm", "btrfs"] = "auto"
    devices: list[str] = Field(default_factory=list)
    loop_count: Integer = Field(3, ge=2, le=32)
    loop_size: str = "2GiB"
    loop_direct_io: bool = False
    """Loop devices only: each reads and writes its backing file with O_DIRECT (as the
    `local` backend's option), so direct I/O on the stripe set reaches the disk below."""
    stripe_size: str = DEFAULT_STRIPE
    erase_existing: bool = False
    """`devices` only: use them even though they hold file systems or partition tables
    (everything on them is lost); a device in use is refused all the same."""
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

    @field_validator("stripe_size")
    @classmethod
    def _stripe(cls, value: str) -> str:
        size = filesystem.parse_size(value)
        if size < 4096 or size & (size - 1):
            raise ValueError("must be a power of two of at least 4KiB (e.g. 64KiB, 256KiB)")
        return value

    @model_validator(mode="after")
    def _devices(self) -> StripedOptions:
        if len(self.devices) == 1:
            raise ValueError("'devices' needs at least 2 devices to stripe over (or none: loops)")
        if len(set(self.devices)) != len(self.devices):
            raise ValueError("'devices' lists a device twice")
        if self.erase_existing and not self.devices:
            raise ValueError("'erase_existing' applies to 'devices' you name, not to loop devices")
        if self.devices and self.loop_direct_io:
            raise ValueError("'loop_direct_io' applies to loop devices only (no 'devices')")
        stripe = filesystem.parse_size(self.stripe_size)
        if self.method == "btrfs" and stripe != BTRFS_STRIPE_BYTES:
            raise ValueError("'stripe_size' must be 64KiB with method 'btrfs' (fixed by btrfs)")
        return self


def _size_problems(options: StripedOptions) -> list[HostProblem]:
    """Whether the devices can hold the file system: btrfs needs a minimum on each
    member, XFS on the striped LV (about the devices' total)."""
    method = options.method
    if method == "auto":
        method = "lvm" if device_mapper.probe().available else "btrfs"
    if options.devices:
        described = [block_device.describe(d)["size_bytes"] for d in options.devices]
        if None in described:
            return []  # a size the kernel does not give: mkfs says it, if it must
        sizes = [
            (f"devices[{i}]", device, size)
            for i, (device, size) in enumerate(zip(options.devices, described, strict=True))
        ]
    else:
        each = filesystem.parse_size(options.loop_size)
        sizes = [("loop_size", "each loop device", each)] * options.loop_count
    if method == "btrfs":
        for option, what, size in sizes:
            small = filesystem.too_small("btrfs", size)
            if small:
                return [(option, f"{small} on each device; {what} has {size / 1024**2:g}MiB")]
        return []
    total = sum(size for _, _, size in sizes)
    small = filesystem.too_small("xfs", total)
    option = "devices" if options.devices else "loop_size"
    return [(option, f"{small}; the devices have {total / 1024**2:g}MiB")] if small else []


class StripedBackend(JournaledBackend):
    """LVM striped LV + XFS where device-mapper exists, else btrfs RAID0."""

    name = "striped"
    options_model = StripedOptions
    options: StripedOptions

    @classmethod
    def host_problems(cls, options: BackendOptions) -> list[HostProblem]:
        assert isinstance(options, StripedOptions)
        problems = []
        for i, device in enumerate(options.devices):
            problem = device_checks.format_problem(device, options.erase_existing)
            if problem:
                problems.append((f"devices[{i}]", problem))
        return problems or _size_problems(options)

    @classmethod
    def plan_notes(cls, options: BackendOptions) -> list[str]:
        assert isinstance(options, StripedOptions)
        return [device_checks.erase_note(d, "a striped file system") for d in options.devices]

    def __init__(
        self, options: StripedOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        super().__init__(options, workdir, experiment)
        self.method: str | None = None
        self.method_reason = ""
        self.devices: list[str] = []
        self._mount = self.workdir / "mnt"

    def choose_method(self) -> tuple[str, str]:
        """The stack to build and why, from the option and the kernel's device-mapper."""
        support = device_mapper.probe()
        if self.options.method == "lvm":
            if not support.available:
                raise BackendUnavailableError(f"striped method 'lvm' cannot run: {support.reason}")
            return "lvm", "requested; " + support.reason
        if self.options.method == "btrfs":
            return "btrfs", "requested"
        if support.available:
            return "lvm", "auto: " + support.reason
        return "btrfs", f"auto: {support.reason}; using btrfs RAID0 instead of LVM"

    def build(self) -> None:
        self.method, self.method_reason = self.choose_method()
        self.devices = self._devices()
        if self.method == "lvm":
            self._build_lvm()
        else:
            self._build_btrfs()

    def _devices(self) -> list[str]:
        if self.options.devices:
            self.refuse_host_problems()  # again: the devices may have changed since the plan
            return list(self.options.devices)
        size = filesystem.parse_size(self.options.loop_size)
        return [
            loop_device.attach(
                self.workdir / f"disk{i}.img",
                size,
                self.journal,
                direct_io=self.options.loop_direct_io,
            )
            for i in range(self.options.loop_count)
        ]

    def _vg_name(self) -> str:
        return f"contio_{self.instance.replace('-', '_')}"

    def _build_lvm(self) -> None:
        for program in ("pvcreate", "vgcreate", "lvcreate"):
            command.require_program(program, "lvm2")
        vg = self._vg_name()
        stripe = filesystem.parse_size(self.options.stripe_size)
        pv, vgcreate, lvcreate = lvm_argvs(self.devices, vg, "data", stripe)
        self.journal.record("lvm-pv", devices=self.devices)
        command.run(pv)
        self.journal.record("lvm-vg", vg=vg)
        command.run(vgcreate)
        command.run(lvcreate)
        lv = lvm_device_path(vg, "data")
        filesystem.make_filesystem("xfs", lv, self.options.mkfs_options)  # a new, wiped LV
        filesystem.mount(lv, self._mount, self.journal, "xfs", self.options.mount_options)

    def _build_btrfs(self) -> None:
        command.require_program("mkfs.btrfs", "btrfs-progs")
        self.journal.record("btrfs-members", devices=self.devices)
        made = str(uuid.uuid4())
        if self.options.devices:  # the user's disks keep no contio file system afterwards
            for dev in self.devices:
                self.journal.record("fs-signature", device=dev, type="btrfs", uuid=made)
        label = self.instance[:255]
        argv = btrfs_raid0_argv(
            self.devices, label, self.options.mkfs_options,
            uuid=made, force=self.options.erase_existing,
        )  # fmt: skip
        command.run(argv)
        # Naming every member lets the mount succeed without a prior `btrfs device scan`.
        options = [f"device={d}" for d in self.devices] + list(self.options.mount_options)
        filesystem.mount(self.devices[0], self._mount, self.journal, "btrfs", options)

    def data_root(self) -> Path:
        return self._mount

    def layout(self) -> dict[str, Any]:
        stripe = filesystem.parse_size(self.options.stripe_size)
        info: dict[str, Any] = {
            "method": self.method,
            "method_reason": self.method_reason,
            "stripes": len(self.devices),
            "stripe_size_bytes": BTRFS_STRIPE_BYTES if self.method == "btrfs" else stripe,
            "devices": [block_device.describe(d) for d in self.devices],
        }
        mount = mountinfo.mount_of(self._mount) if self._mount.exists() else None
        info["mount"] = mount.as_dict() if mount else None
        if self.method == "btrfs" and mount is not None:
            info["btrfs_profiles"] = btrfs_profiles(self._mount)
        return info


def btrfs_profiles(mount_point: Path) -> dict[str, str]:
    """Allocation profile per block group type, e.g. {'Data': 'RAID0', 'Metadata': 'RAID0'}."""
    out = command.run(["btrfs", "filesystem", "df", str(mount_point)]).stdout
    profiles = {}
    for line in out.splitlines():
        kind, sep, rest = line.partition(",")
        if sep:
            profiles[kind.strip()] = rest.split(":")[0].strip()
    return profiles
