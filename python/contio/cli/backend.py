"""`contio backend list|check`: the storage backends and their options."""

from __future__ import annotations

import json

import click
import yaml

from contio.cli import cli
from contio.errors import BackendOptionError


@cli.group()
def backend() -> None:
    """Storage backends (local, striped, gluster, nfs, path)."""


@backend.command("list")
def list_backends() -> None:
    """Each backend with its options and their defaults."""
    from contio.backends import registry

    for name in registry.names():
        model = registry.backend_class(name).options_model
        click.echo(f"{name}:")
        for field, info in model.model_fields.items():
            default = (
                "(required)"
                if info.is_required()
                else repr(info.get_default(call_default_factory=True))
            )
            click.echo(f"  {field} = {default}")


@backend.command()
@click.argument("name")
@click.argument("options", nargs=-1)
def check(name: str, options: tuple[str, ...]) -> None:
    """Validate NAME's OPTIONS (KEY=VALUE, values in YAML: 3, [a, b]) and print them in full."""
    from contio.backends import registry

    raw = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise BackendOptionError(name, item, "options are KEY=VALUE")
        try:
            raw[key] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise BackendOptionError(name, key, f"value is not YAML: {exc}") from None
    validated = registry.validate_options(name, raw)
    click.echo(json.dumps(validated.model_dump(mode="json"), indent=2))
