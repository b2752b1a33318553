"""A scratch XFS file system on a loop device, for the direct-I/O file benchmarks.

The image is a sparse file in contio's cache; the loop device does direct I/O on it
(`losetup --direct-io=on`) so that O_DIRECT reads inside XFS are not served from the
host's page cache of the image file. Everything is torn down on exit, also on error
or Ctrl-C. Needs root (losetup, mount).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from benchmarks.child import run_checked, run_child
from benchmarks.errors import SetupError


def _require_root_tools() -> None:
    if os.geteuid() != 0:
        raise SetupError("the loop-backed XFS file system needs root (losetup, mount)")
    for tool in ("losetup", "mkfs.xfs", "mount", "umount"):
        if shutil.which(tool) is None:
            raise SetupError(f"{tool} not found (Debian: util-linux, xfsprogs, mount)")


def _attach(image: Path) -> str:
    """Attaches image to a free loop device with direct I/O; plain when unsupported."""
    direct = run_child(["losetup", "--find", "--show", "--direct-io=on", str(image)])
    if direct.returncode == 0:
        return direct.stdout.strip()
    return run_checked(["losetup", "--find", "--show", str(image)]).stdout.strip()


@contextmanager
def loop_xfs(workdir: Path, size_bytes: int) -> Iterator[Path]:
    """Yields the mount point of a fresh XFS of size_bytes backed by a file in workdir."""
    _require_root_tools()
    image = workdir / "contio-bench-xfs.img"
    mount_point = workdir / "contio-bench-xfs"
    device = ""
    mounted = False
    try:
        with image.open("wb") as handle:
            handle.truncate(size_bytes)
        run_checked(["mkfs.xfs", "-q", "-f", str(image)])
        device = _attach(image)
        mount_point.mkdir(exist_ok=True)
        run_checked(["mount", "-t", "xfs", device, str(mount_point)])
        mounted = True
        yield mount_point
    finally:
        if mounted:
            run_child(["umount", str(mount_point)])
        if device:
            run_child(["losetup", "-d", device])
        with suppress(OSError):
            mount_point.rmdir()
        image.unlink(missing_ok=True)
