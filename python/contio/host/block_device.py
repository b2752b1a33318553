"""Facts about block devices for descriptions and input checks (size, model, scheduler)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any


def is_block_device(path: str) -> bool:
    """Whether `path` exists and is a block device."""
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except OSError:
        return False


def _sys_dir(device: str) -> Path:
    return Path("/sys/class/block") / Path(os.path.realpath(device)).name


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return None


def describe(device: str) -> dict[str, Any]:
    """Name, size in bytes, rotational flag, scheduler, model; for a loop device its backing
    file and whether it does direct I/O on it."""
    sys_dir = _sys_dir(device)
    sectors = _read(sys_dir / "size")
    scheduler = _read(sys_dir / "queue" / "scheduler") or ""
    active = next((s.strip("[]") for s in scheduler.split() if s.startswith("[")), scheduler)
    info: dict[str, Any] = {
        "device": device,
        "size_bytes": int(sectors) * 512 if sectors and sectors.isdigit() else None,
        "rotational": _read(sys_dir / "queue" / "rotational") == "1",
        "scheduler": active or None,
        "model": _read(sys_dir / "device" / "model"),
    }
    backing = _read(sys_dir / "loop" / "backing_file")
    if backing:
        info["loop_backing_file"] = backing
        # 1 when the loop driver reads and writes the file with O_DIRECT (no host page cache).
        info["loop_direct_io"] = _read(sys_dir / "loop" / "dio") == "1"
    return info
