"""Command lines of the two striping stacks: LVM striped LV + XFS, or btrfs RAID0.

Pure functions so the LVM path, which this machine's kernel cannot run, is unit-tested.
"""

from __future__ import annotations

from collections.abc import Sequence

from contio.host import filesystem

# btrfs RAID0 writes data in fixed 64 KiB stripe elements; it cannot be configured.
BTRFS_STRIPE_BYTES = 64 * 1024


def lvm_argvs(
    devices: Sequence[str], vg: str, lv: str, stripe_bytes: int, extents: str = "100%FREE"
) -> list[list[str]]:
    """pvcreate, vgcreate, lvcreate -i N -I size: one LV striped over every device."""
    stripe_kib = stripe_bytes // 1024
    return [
        ["pvcreate", "--yes", "--force", *devices],
        ["vgcreate", "--yes", vg, *devices],
        [
            "lvcreate", "--yes", "--wipesignatures", "y",
            "--stripes", str(len(devices)), "--stripesize", f"{stripe_kib}k",
            "--extents", extents, "--name", lv, vg,
        ],
    ]  # fmt: skip


def lvm_device_path(vg: str, lv: str) -> str:
    """The block device of a logical volume."""
    return f"/dev/{vg}/{lv}"


def btrfs_raid0_argv(
    devices: Sequence[str],
    label: str,
    extra: Sequence[str] = (),
    *,
    uuid: str | None = None,
    force: bool = False,
) -> list[str]:
    """mkfs.btrfs with RAID0 data and metadata over every device, with file system `uuid`
    (None: mkfs draws one); `force` overwrites signatures on the devices."""
    raid0 = ["-L", label, "-d", "raid0", "-m", "raid0", *extra]
    return filesystem.mkfs_argv("btrfs", devices, raid0, uuid=uuid, force=force)
