"""The root `contio` command group; each command module adds its commands to it."""

from __future__ import annotations

import click

from contio import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="contio")
def cli() -> None:
    """Measure and control the storage I/O of containerized applications."""
