"""`contio cleanup`: remove what killed runs left behind (mounts, loop devices, clusters)."""

from __future__ import annotations

import click

from contio.cli import cli
from contio.errors import BackendError


@cli.command()
@click.option(
    "--clusters", is_flag=True,
    help="Also remove local clusters made by `contio cluster up` (kept by default: they "
    "are meant to outlive the command).",
)  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Only list what would be removed.")
def cleanup(clusters: bool, dry_run: bool) -> None:
    """Remove the storage of runs that were killed (SIGKILL, OOM, power cut) before they
    could tear down. Backends of runs still going are left alone."""
    from contio.backends import leftovers

    found = leftovers.find(include_clusters=clusters)
    if not found:
        click.echo("nothing to clean up")
        return
    failed = 0
    for leftover in found:
        click.echo(f"{leftover.kind} {leftover.name} ({leftover.path})")
        for resource in leftover.resources:
            click.echo(f"  {resource}")
        if dry_run:
            continue
        try:
            leftovers.remove(leftover)
        except BackendError as exc:
            failed += 1
            click.echo(f"  not removed: {exc}", err=True)
    if failed:
        raise BackendError(f"{failed} of {len(found)} leftover(s) could not be removed; see above")
    click.echo("listed only (--dry-run)" if dry_run else f"removed {len(found)} leftover(s)")
