"""A description of the machine and software an experiment ran on, for its results folder."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path
from typing import Any

from contio import __version__


def _first_line_with(path: Path, prefix: str) -> str | None:
    try:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def describe_host(engine_version: str) -> dict[str, Any]:
    """Host name, kernel, CPUs, memory, and the versions of contio, its engine and Python."""
    uname = platform.uname()
    return {
        "hostname": uname.node,
        "system": uname.system,
        "kernel": uname.release,
        "machine": uname.machine,
        "cpu_model": _first_line_with(Path("/proc/cpuinfo"), "model name"),
        "cpu_count": os.cpu_count(),
        "memory_total": _first_line_with(Path("/proc/meminfo"), "MemTotal"),
        "contio_version": __version__,
        "engine_version": engine_version,
        "python": sys.version.split()[0],
    }
