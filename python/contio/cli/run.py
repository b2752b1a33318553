"""`contio run`: run an experiment spec (the embedded default when none is given)."""

from __future__ import annotations

import click

from contio.cli import cli


@cli.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
def run(spec: str | None) -> None:
    """Run SPEC (YAML), or the embedded default experiment."""
    raise click.ClickException("not implemented yet")
