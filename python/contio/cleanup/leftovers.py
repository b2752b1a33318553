"""What killed runs left behind, found and removed by `contio cleanup`.

A run tears down its containers and backends when it ends, fails or is interrupted
(SIGINT, SIGTERM). SIGKILL, the OOM killer or a power cut skip that; what is left says
whose it was:
- Docker containers (database servers, the created containers that hold the images,
  engine clients), networks and volumes carry the run's experiment and owner labels
  (host, pid and its start time, `contio.containers.labels`): an owner that no longer runs
  is dead. Found only when a Docker engine answers; never started for this.
- Backends' undo journals stay under the state directory and still say what exists
  (mounts, loop devices, clusters a backend built for itself, ...).
- `local-dir` data directories (`contio-<name>-XXXX`) and contio's scratch directories
  under the temp directory (and under the base directories asked for).

A backend or directory whose owner lock (see owner_lock) is still held belongs to a run
that is still going, as does a Docker resource whose owner runs; cleanup leaves them
alone. A directory is removed only when it is a real directory (never through a
symbolic link) directly under its base whose lock file holds contio's owner record for
it (`owner_record`); anything else named like one is left alone and said so
(`left_alone`). Removal goes in the order found: containers (which may use the data)
first.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from contio.containers.sweep import dead_runs, remove_dead
from contio.errors import BackendError
from contio.gluster import local_cluster
from contio.host.owned_dirs import Scan, remove_tree, scan
from contio.host.owner_lock import OWNER_LOCK
from contio.host.owner_record import why_not_owned
from contio.host.state_dir import state_root
from contio.host.undo_journal import UndoJournal, describe_entry
from contio.middleware.daemon import PidFile
from contio.samplers.block_requests import dead_instances, remove_instance

if TYPE_CHECKING:
    import docker

DATA_DIR_PATTERN = "contio-*"
"""local-dir roots and scratch directories; only those with an owner lock are contio's."""


@dataclass(frozen=True)
class Leftover:
    """One thing a killed run left: a backend workdir, a local cluster, a data directory,
    or one experiment's Docker resources."""

    kind: str
    """"docker", "backend", "qos-agent" (a node agent's VNodes), "qos-agent-pid" (a killed
    detached agent's PID file), "trace" (a profile's tracefs instance), "data-dir" or
    "cluster"."""
    name: str
    """The experiment, the backend instance (`striped-1a2b3c4d`), the directory's or the
    cluster's name."""
    path: Path | None
    """Its directory or file (None for Docker resources)."""
    resources: list[str]
    """What it still holds, one line each."""


DATA_DIR_KINDS = ("local-dir", "scratch")
STATE_DIRS = {"backend": "backends", "qos-agent": "qos-agents"}
"""Where under the state directory each kind of workdir is (its owner record's kind)."""
OWNER_KINDS = {"backend": ("backend",), "qos-agent": ("qos-agent",), "data-dir": DATA_DIR_KINDS}
"""The owner records each kind of leftover directory may carry."""


def find(
    include_clusters: bool = False,
    data_bases: Sequence[Path] = (),
    client: docker.DockerClient | None = None,
) -> list[Leftover]:
    """Leftovers of dead runs, in the order they are to be removed. Data directories are
    looked for under the temp directory and `data_bases`; Docker resources only with a
    `client`. Clusters made by `contio cluster up` are meant to outlive the command, so
    they count only with `include_clusters`."""
    found = _docker_leftovers(client) if client is not None else []
    for kind, scanned in _state_scans():
        for workdir in scanned.dead:
            found.append(Leftover(kind, workdir.name, workdir, _resources(workdir)))
    agents = state_root() / STATE_DIRS["qos-agent"]
    if not agents.is_symlink():
        for pid_file in sorted(agents.glob("*.pid")):
            if pid_file.is_symlink():
                continue
            if PidFile(pid_file).running() is None:  # a killed daemon's: it names no one now
                found.append(Leftover("qos-agent-pid", pid_file.stem, pid_file, []))
    for instance in dead_instances():
        found.append(Leftover("trace", instance.name, instance, ["block_rq_complete tracing"]))
    for directory in _data_scan(data_bases).dead:
        children = sorted(p.name for p in directory.iterdir() if p.name != OWNER_LOCK)
        found.append(Leftover("data-dir", directory.name, directory, children))
    clusters = state_root() / "clusters"
    if include_clusters and not clusters.is_symlink():
        for root in sorted(clusters.iterdir() if clusters.is_dir() else []):
            if root.is_dir() and not root.is_symlink():
                found.append(Leftover("cluster", root.name, root, _resources(root)))
    return found


def left_alone(data_bases: Sequence[Path] = ()) -> list[tuple[Path, str]]:
    """What looks like a dead run's directory but is not provably contio's, with the
    reason (a symbolic link, a lock file without contio's owner record, ...)."""
    found: list[tuple[Path, str]] = []
    for directory in STATE_DIRS.values():
        path = state_root() / directory
        if path.is_symlink():
            found.append((path, "a symbolic link (contio never follows one)"))
    for _, scanned in _state_scans():
        found += scanned.left_alone
    return found + _data_scan(data_bases).left_alone


def _state_scans() -> list[tuple[str, Scan]]:
    """The backends' and agents' workdirs under the state directory (not through a
    link: a state directory that is one is not looked in)."""
    scans = []
    for kind, directory in STATE_DIRS.items():
        path = state_root() / directory
        if not path.is_symlink():
            scans.append((kind, scan(path, "*", OWNER_KINDS[kind])))
    return scans


def _data_scan(bases: Sequence[Path]) -> Scan:
    """`contio-*` directories under the temp directory and `bases` that contio made for
    a run that died. Without a lock file they are not contio's (or a live run has just
    made one and not locked it yet), and are left alone."""
    merged = Scan()
    seen: set[Path] = set()
    for base in [Path(tempfile.gettempdir()), *bases]:
        scanned = scan(base, DATA_DIR_PATTERN, DATA_DIR_KINDS)
        for path in scanned.dead:
            if path.resolve() not in seen:  # the same base given twice
                seen.add(path.resolve())
                merged.dead.append(path)
        merged.left_alone += [e for e in scanned.left_alone if e not in merged.left_alone]
    return merged


def remove(leftover: Leftover, client: docker.DockerClient | None = None) -> None:
    """Remove `leftover` (Docker resources need the `client` that found them).

    Raises `BackendError` naming what could not be undone (a journal keeps it)."""
    if leftover.kind == "docker":
        _remove_docker(leftover.name, client)
        return
    if leftover.kind == "cluster":
        local_cluster.down(leftover.name)
        return
    assert leftover.path is not None  # every other kind is a file or a directory
    if leftover.kind == "qos-agent-pid":
        leftover.path.unlink(missing_ok=True)
        return
    if leftover.kind == "trace":
        remove_instance(leftover.path)
        return
    kinds = OWNER_KINDS.get(leftover.kind)
    if kinds is not None:
        # Checked again just before: the directory must still be the one found.
        reason = why_not_owned(leftover.path, kinds)
        if reason is not None:
            raise BackendError(f"{leftover.path} left alone: {reason}")
    if leftover.kind in ("backend", "qos-agent"):
        UndoJournal(leftover.path / "journal.json").undo_all()
    remove_tree(leftover.path)


def _remove_docker(experiment: str, client: docker.DockerClient | None) -> None:
    import docker.errors

    if client is None:
        raise BackendError("Docker leftovers need a Docker client to be removed")
    try:
        remove_dead(client, experiment)
    except docker.errors.DockerException as exc:
        raise BackendError(f"Docker refused to remove {experiment}'s resources: {exc}") from exc


def _docker_leftovers(client: docker.DockerClient) -> list[Leftover]:
    found = []
    for experiment, left in sorted(dead_runs(client).items()):
        resources = [f"container {n}" for n in left.containers]
        resources += [f"network {n}" for n in left.networks]
        resources += [f"volume {n}" for n in left.volumes]
        found.append(Leftover("docker", experiment, None, resources))
    return found


def _resources(directory: Path) -> list[str]:
    journal = directory / "journal.json"
    if not journal.exists():
        return []
    return [describe_entry(entry) for entry in UndoJournal(journal).entries]
