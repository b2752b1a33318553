"""How a contio command ends: exit code 2 for bad input, 1 for a failure, 130 when
interrupted. Shared by the `contio` CLI and the middleware's light service entry point
(`python -m contio.middleware.services`), which must not import the whole CLI."""

from __future__ import annotations

import sys

import click

from contio.errors import ContioError, UsageError


def run_command(group: click.Group) -> None:
    """Run `group` on sys.argv and map contio's errors to exit codes and one-line messages."""
    try:
        group.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except UsageError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except ContioError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
