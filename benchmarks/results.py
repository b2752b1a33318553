"""Writing each benchmark's measurements to a JSON file, as soon as the benchmark ends."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from benchmarks.report import Report

SCHEMA = "contio.bench.result/1"


def environment() -> dict[str, Any]:
    """The machine the numbers come from."""
    return {
        "host": platform.node(),
        "kernel": platform.release(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "loadavg": os.getloadavg(),
    }


def write_report(report: Report, directory: Path, extra: dict[str, Any]) -> Path:
    """Writes one report to DIRECTORY/<UTC time>-<name>.json; never overwrites."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    path = directory / f"{stamp}-{report.name}.json"
    suffix = 1
    while path.exists():
        path = directory / f"{stamp}-{report.name}-{suffix}.json"
        suffix += 1
    document = {"schema": SCHEMA, "environment": environment(), **extra, **report.to_json()}
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path
