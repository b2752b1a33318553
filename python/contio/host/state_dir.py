"""contio's state directory: backend and cluster journals, owner locks, pid files."""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR_ENV = "CONTIO_STATE_DIR"


def state_root() -> Path:
    """Where contio keeps backend and cluster state (`$CONTIO_STATE_DIR`, else /var/lib/contio)."""
    return Path(os.environ.get(STATE_DIR_ENV, "/var/lib/contio"))
