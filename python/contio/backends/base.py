"""What every storage backend does: prepare a data directory per use, describe itself, tear down.

Backends share the lifecycle prepare → use → teardown; `teardown` removes exactly
what the backend created and is safe to call more than once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


class Backend(Protocol):
    """Storage a target keeps its data on."""

    name: str

    def prepare(self, label: str) -> Path:
        """A fresh, empty directory for one load (and the runs on its data)."""
        ...

    def release(self, path: Path) -> None:
        """Remove a directory from `prepare` once its runs are done."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the storage is (path, file system, device), for the results folder."""
        ...

    def teardown(self) -> None:
        """Remove everything the backend created."""
        ...
