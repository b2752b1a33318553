"""`contio cleanup`: remove what killed runs left behind (containers, mounts, loop devices,
data directories, clusters)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from contio.cleanup import leftovers
from contio.cli.root import cli
from contio.containers.docker_engine import connect, engine_reachable
from contio.errors import BackendError

if TYPE_CHECKING:
    import docker


@cli.command()
@click.option(
    "--clusters", is_flag=True,
    help="Also remove local clusters made by `contio cluster up` (kept by default: they "
    "are meant to outlive the command).",
)  # fmt: skip
@click.option(
    "--data-dir", "data_dirs", multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Also look for local-dir data directories under DIR (a local-dir backend's "
    "`path`; the temp directory is always looked in). Repeatable.",
)  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Only list what would be removed.")
def cleanup(clusters: bool, data_dirs: tuple[Path, ...], dry_run: bool) -> None:
    """Remove what runs that were killed (SIGKILL, OOM, power cut) left before they could
    tear down: their Docker containers (database servers, image holds, engine clients),
    networks and volumes; their backends' mounts, loop devices and clusters; their
    local-dir data directories (`contio-*` under the temp directory).

    What belongs to a run still going is left alone: its backends and directories hold
    an owner lock, its Docker resources are labelled with its process. A directory is
    removed only when it is a real directory (a symbolic link is never followed) whose
    lock file holds the owner record contio wrote for it; others named like one are
    listed as left alone. Docker is checked only when an engine answers (it is never
    started for this)."""
    client = _docker_client()
    for path, reason in leftovers.left_alone(data_dirs):
        click.echo(f"left alone: {path}: {reason}", err=True)
    try:
        found = leftovers.find(clusters, data_dirs, client)
        if not found:
            click.echo("nothing to clean up")
            return
        failed = 0
        for leftover in found:
            where = leftover.path if leftover.path is not None else "docker"
            click.echo(f"{leftover.kind} {leftover.name} ({where})")
            for resource in leftover.resources:
                click.echo(f"  {resource}")
            if dry_run:
                continue
            try:
                leftovers.remove(leftover, client)
            except BackendError as exc:
                failed += 1
                click.echo(f"  not removed: {exc}", err=True)
    finally:
        if client is not None:
            client.close()
    if failed:
        raise BackendError(f"{failed} of {len(found)} leftover(s) could not be removed; see above")
    click.echo("listed only (--dry-run)" if dry_run else f"removed {len(found)} leftover(s)")


def _docker_client() -> docker.DockerClient | None:
    """A client of the Docker engine when one answers now; never starts one."""
    return connect() if engine_reachable() else None
