"""Building images in dependency order, reusing every image whose recipe is unchanged."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable

import docker
import docker.errors
from docker.models.images import Image

from contio.containers import labels
from contio.errors import RecipeInputsUnavailable
from contio.images import registry
from contio.images.recipe import BuildResult, existing_image

log = logging.getLogger(__name__)

# Called before a recipe is built (not when reused), e.g. to tell the user it may take a while.
Progress = Callable[[str], None]


def _with_dependencies(names: Iterable[str]) -> list[str]:
    """`names` and everything they build FROM, each after its dependencies."""
    ordered: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in ordered:
            return
        if name in path:
            raise ValueError(f"image recipes depend on each other in a cycle: {(*path, name)}")
        for parent in registry.recipe(name).depends:
            visit(parent, (*path, name))
        ordered.append(name)

    for name in names:
        visit(name, ())
    return ordered


def _current_id(client: docker.DockerClient, tag: str) -> str | None:
    try:
        return client.images.get(tag).id
    except docker.errors.ImageNotFound:
        return None


def _built_before(client: docker.DockerClient, tag: str, name: str) -> Image | None:
    """The image `tag` when a contio recipe `name` built it (whatever its recipe hash)."""
    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None
    found = image.labels or {}
    if found.get(labels.RECIPE_NAME) == name and labels.RECIPE_HASH in found:
        return image
    return None


def _remove_if_unused(client: docker.DockerClient, image_id: str) -> None:
    """Remove an image an updated recipe replaced, unless containers or other images use it."""
    try:
        client.images.remove(image_id, noprune=False)
    except docker.errors.APIError as exc:  # 409 conflict: still in use; keep it
        log.info("kept replaced image %s: %s", image_id[:19], exc)


def build(
    client: docker.DockerClient,
    names: Iterable[str] | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> list[BuildResult]:
    """Build the images `names` (all when None) and what they depend on.

    An image whose tag already carries its recipe hash is reused, unless `force`.
    """
    wanted = list(names) if names is not None else registry.names()
    hashes: dict[str, str] = {}
    results = []
    for name in _with_dependencies(wanted):
        recipe = registry.recipe(name)
        started = time.monotonic()
        try:
            inputs = recipe.inputs()
        except RecipeInputsUnavailable:
            reused = None if force else _built_before(client, recipe.tag, name)
            if reused is None:
                raise
            # Nothing to compare its recipe with: it is what this host has.
            log.warning("%s: its inputs cannot be had here; reusing the image there", recipe.tag)
            hashes[name] = reused.labels[labels.RECIPE_HASH]
            results.append(
                BuildResult(name, recipe.tag, reused.id, hashes[name], False, 0.0, checked=False)
            )
            continue
        recipe_hash = recipe.recipe_hash(inputs, {p: hashes[p] for p in recipe.depends})
        hashes[name] = recipe_hash
        image_id = None if force else existing_image(client, recipe.tag, recipe_hash)
        built = image_id is None
        if image_id is None:
            if progress is not None:
                progress(name)
            replaced = _current_id(client, recipe.tag)
            image_labels = {labels.RECIPE_HASH: recipe_hash, labels.RECIPE_NAME: name}
            image_id = recipe.build_image(client, inputs, image_labels)
            if replaced is not None and replaced != image_id:
                _remove_if_unused(client, replaced)
        results.append(
            BuildResult(
                name=name,
                tag=recipe.tag,
                image_id=image_id,
                recipe_hash=recipe_hash,
                built=built,
                seconds=time.monotonic() - started,
            )
        )
    return results
