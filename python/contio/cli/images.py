"""`contio images`: build and list the offline images (no registry needed)."""

from __future__ import annotations

import click
import docker.errors

from contio.cli.root import cli
from contio.containers import labels
from contio.containers.docker_engine import ensure_engine
from contio.images import registry
from contio.images.build import build


@cli.group()
def images() -> None:
    """Build and list contio's offline images."""


@images.command("build")
@click.argument("names", nargs=-1)
@click.option("--force", is_flag=True, help="Rebuild even when the recipe is unchanged.")
def build_command(names: tuple[str, ...], force: bool) -> None:
    """Build NAMES (all images when none) and the images they are built from.

    An image whose recipe (Dockerfile and inputs) is unchanged is reused.
    """
    for name in names:
        registry.recipe(name)  # unknown names fail here, before anything runs
    client = ensure_engine()
    results = build(
        client,
        list(names) or None,
        force=force,
        progress=lambda name: click.echo(f"building {name} ...", err=True),
    )
    for result in results:
        state = "built" if result.built else "reused"
        note = "" if result.checked else "  (recipe not checked: its inputs cannot be had here)"
        click.echo(
            f"{result.tag:<28} {state:<6} {result.seconds:7.1f}s  {result.image_id[7:19]}{note}"
        )


@images.command("list")
def list_command() -> None:
    """List every recipe, its image tag, and whether the image is present."""
    client = ensure_engine()
    for name in registry.names():
        recipe = registry.recipe(name)
        try:
            image = client.images.get(recipe.tag)
        except docker.errors.ImageNotFound:
            click.echo(f"{name:<10} {recipe.tag:<28} missing")
            continue
        recipe_hash = (image.labels or {}).get(labels.RECIPE_HASH, "")
        size_mb = image.attrs.get("Size", 0) / 1e6
        click.echo(
            f"{name:<10} {recipe.tag:<28} {image.short_id[7:]}  {size_mb:7.0f} MB  "
            f"recipe {recipe_hash[:12]}"
        )
