"""The `contio` command line. One module per command group, registered here."""

from __future__ import annotations

import sys

import click

# Each command group lives in its own module, which adds its commands to `cli` on import.
from contio.cli import backend, cleanup, cluster, images, plan, qos, report, results, run  # noqa: F401
from contio.cli.root import cli
from contio.errors import ContioError, UsageError

__all__ = ["cli", "main"]


def main() -> None:
    """Entry point: run the CLI and map contio's errors to exit codes (2 = bad input)."""
    try:
        cli.main(standalone_mode=False)
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
