"""`contio backend list|check`: the storage backends and their options."""

from __future__ import annotations

import json

import click
import yaml

from contio.backends import registry
from contio.cli.root import cli
from contio.errors import BackendOptionError
from contio.experiment.checks import backend_option_defaults, backend_options, backend_types
from contio.yaml_input import read_yaml


@cli.group()
def backend() -> None:
    """Storage backends (local-dir, local, striped, gluster, nfs, path)."""


@backend.command("list")
def list_backends() -> None:
    """Each backend with its options and their defaults."""
    for name in backend_types():
        click.echo(f"{name}:")
        for field, default in backend_option_defaults(name).items():
            click.echo(f"  {field} = {default}")


@backend.command()
@click.argument("name")
@click.argument("options", nargs=-1)
def check(name: str, options: tuple[str, ...]) -> None:
    """Validate NAME's OPTIONS (KEY=VALUE, values in YAML: 3, [a, b]) against the
    backend and this host (a path that exists, a device that holds no data), and print
    them in full."""
    raw = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise BackendOptionError(name, item, "options are KEY=VALUE")
        try:
            raw[key] = read_yaml(value)
        except yaml.YAMLError as exc:
            raise BackendOptionError(name, key, f"value is not YAML: {exc}") from None
    checked = backend_options(name, raw)
    for option, message in registry.host_problems({"type": name, **raw}):
        raise BackendOptionError(name, option, message)  # what a spec's plan would refuse
    click.echo(json.dumps(checked, indent=2))
