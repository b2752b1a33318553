"""Running `contio` as a user does: `python -m contio …` in a directory of their own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def contio_in(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`contio ARGS` run in `cwd`, its output captured (never raises on a failure)."""
    return subprocess.run(
        [sys.executable, "-m", "contio", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip
