"""The `contio` command line. One module per command group, registered here."""

from __future__ import annotations

import sys

import click

from contio import __version__
from contio.errors import ContioError, UsageError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="contio")
def cli() -> None:
    """Measure and control the storage I/O of containerized applications."""


def _register() -> None:
    # Each command group lives in its own module and adds itself to `cli`.
    from contio.cli import backend, cleanup, cluster, images, plan, report, results, run  # noqa: F401


def main() -> None:
    """Entry point: run the CLI and map contio's errors to exit codes (2 = bad input)."""
    _register()
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
