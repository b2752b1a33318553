"""What killed runs left under the state directory, found and removed by `contio cleanup`.

A run tears its backends down when it ends, fails or is interrupted (SIGINT, SIGTERM).
SIGKILL, the OOM killer or a power cut skip that; the backends' undo journals stay
under the state directory and still say what exists (mounts, loop devices, clusters a
backend built for itself, ...). Docker containers and volumes are swept separately, by
the Docker runtime on its next start.

A backend whose owner lock (see owner_lock) is still held belongs to a run that is
still going; cleanup leaves it alone.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from contio.backends.interface import state_root
from contio.backends.owner_lock import owner_alive
from contio.backends.undo_journal import UndoJournal, describe_entry
from contio.errors import BackendError


@dataclass(frozen=True)
class Leftover:
    """One backend workdir (or local cluster) whose owner is gone."""

    kind: str
    """"backend" or "cluster"."""
    name: str
    """The backend instance (`striped-1a2b3c4d`) or the cluster name."""
    path: Path
    resources: list[str]
    """What its journal still lists, one line each."""


def find(include_clusters: bool = False) -> list[Leftover]:
    """Leftovers under the state directory. Clusters made by `contio cluster up` are meant
    to outlive the command, so they count only with `include_clusters`."""
    found = []
    for workdir in sorted((state_root() / "backends").glob("*/")):
        if not owner_alive(workdir):
            found.append(Leftover("backend", workdir.name, workdir, _resources(workdir)))
    if include_clusters:
        for root in sorted((state_root() / "clusters").glob("*/")):
            found.append(Leftover("cluster", root.name, root, _resources(root)))
    return found


def remove(leftover: Leftover) -> None:
    """Undo everything `leftover`'s journal lists, then delete its directory.

    Raises `BackendError` naming what could not be undone (the journal keeps it)."""
    if leftover.kind == "cluster":
        from contio.gluster import local_cluster

        local_cluster.down(leftover.name)
        return
    UndoJournal(leftover.path / "journal.json").undo_all()
    shutil.rmtree(leftover.path, ignore_errors=True)
    if leftover.path.exists():
        raise BackendError(f"could not remove {leftover.path}")


def _resources(directory: Path) -> list[str]:
    journal = directory / "journal.json"
    if not journal.exists():
        return []
    return [describe_entry(entry) for entry in UndoJournal(journal).entries]
