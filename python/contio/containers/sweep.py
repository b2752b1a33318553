"""Removing what crashed runs left behind, and everything of one experiment.

A resource belongs to a crashed run when its owner labels name a process on this
host that no longer exists (or a pid now reused by another process). Resources of
live runs, of other hosts, or without owner labels are left alone.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import docker
import docker.errors

from contio.containers import labels

log = logging.getLogger(__name__)


@dataclass
class Removed:
    """Names of what a sweep or a teardown removed."""

    containers: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)
    volumes: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.containers or self.networks or self.volumes)


def _dead(resource_labels: dict[str, str] | None) -> bool:
    owner = labels.Owner.from_labels(resource_labels or {})
    return owner is not None and not owner.is_alive()


def _busy(exc: docker.errors.APIError, name: str) -> bool:
    """A 409 conflict: another sweep is removing it already, or a container still uses a
    network or volume (removed after it). Left for later, never fatal."""
    if exc.status_code != 409:
        return False
    log.info("not removed now: %s (%s)", name, exc.explanation or exc)
    return True


def _remove_containers(client: docker.DockerClient, filters: dict, only_dead: bool) -> list[str]:
    removed = []
    for container in client.containers.list(all=True, filters=filters, ignore_removed=True):
        if only_dead and not _dead(container.labels):
            continue
        try:
            # force: a running container is killed first; v: its anonymous volumes go too.
            container.remove(force=True, v=True)
        except docker.errors.NotFound:
            continue  # removed concurrently (auto-remove, another sweep)
        except docker.errors.APIError as exc:
            if _busy(exc, container.name):
                continue
            raise
        removed.append(container.name)
    return removed


def _remove_networks(client: docker.DockerClient, filters: dict, only_dead: bool) -> list[str]:
    removed = []
    for network in client.networks.list(filters=filters):
        if only_dead and not _dead(network.attrs.get("Labels")):
            continue
        try:
            network.remove()
        except docker.errors.NotFound:
            continue
        except docker.errors.APIError as exc:
            if _busy(exc, network.name):
                continue
            raise
        removed.append(network.name)
    return removed


def _remove_volumes(client: docker.DockerClient, filters: dict, only_dead: bool) -> list[str]:
    removed = []
    for volume in client.volumes.list(filters=filters):
        if only_dead and not _dead(volume.attrs.get("Labels")):
            continue
        try:
            volume.remove(force=True)
        except docker.errors.NotFound:
            continue
        except docker.errors.APIError as exc:
            if _busy(exc, volume.name):
                continue
            raise
        removed.append(volume.name)
    return removed


def _remove(client: docker.DockerClient, label_filter: str, only_dead: bool) -> Removed:
    # Containers first: networks and volumes in use by a container cannot be removed.
    filters = {"label": label_filter}
    return Removed(
        containers=_remove_containers(client, filters, only_dead),
        networks=_remove_networks(client, filters, only_dead),
        volumes=_remove_volumes(client, filters, only_dead),
    )


def remove_experiment(client: docker.DockerClient, experiment: str) -> Removed:
    """Remove every container, network and volume labelled with `experiment`."""
    return _remove(client, f"{labels.EXPERIMENT}={experiment}", only_dead=False)


def dead_runs(client: docker.DockerClient) -> dict[str, Removed]:
    """What crashed runs left, by experiment, removing nothing (`contio cleanup
    --dry-run` lists it; `remove_dead` removes one experiment's)."""
    found: dict[str, Removed] = {}

    def add(kind: str, name: str, resource_labels: dict[str, str] | None) -> None:
        if _dead(resource_labels):
            experiment = (resource_labels or {}).get(labels.EXPERIMENT, "")
            getattr(found.setdefault(experiment, Removed()), kind).append(name)

    filters = {"label": labels.EXPERIMENT}
    for container in client.containers.list(all=True, filters=filters, ignore_removed=True):
        add("containers", container.name, container.labels)
    for network in client.networks.list(filters=filters):
        add("networks", network.name, network.attrs.get("Labels"))
    for volume in client.volumes.list(filters=filters):
        add("volumes", volume.name, volume.attrs.get("Labels"))
    return found


def remove_dead(client: docker.DockerClient, experiment: str) -> Removed:
    """Remove what a crashed run of `experiment` left (only resources whose owner is dead)."""
    return _remove(client, f"{labels.EXPERIMENT}={experiment}", only_dead=True)


def sweep_leftovers(client: docker.DockerClient) -> Removed:
    """Remove contio's resources whose owning process on this host is gone."""
    removed = _remove(client, labels.EXPERIMENT, only_dead=True)
    if removed:
        log.warning("removed leftovers of crashed runs: %s", removed)
    return removed
