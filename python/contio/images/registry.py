"""The image recipes by name. Each recipe module registers its class with `@register`."""

from __future__ import annotations

import importlib

from contio.errors import UsageError
from contio.images.recipe import Recipe

_RECIPES: dict[str, type[Recipe]] = {}
# Modules that hold recipes; imported on first use so that importing contio stays cheap.
_MODULES = ("debian", "engine", "jre", "mariadb", "postgres", "redis", "cassandra", "ferretdb")


def register(cls: type[Recipe]) -> type[Recipe]:
    """Class decorator: make recipe `cls` buildable by its `name`."""
    _RECIPES[cls.name] = cls
    return cls


def _load() -> None:
    for module in _MODULES:
        importlib.import_module(f"contio.images.{module}")


def names() -> list[str]:
    """Every recipe name, in registration order."""
    _load()
    return list(_RECIPES)


def recipe(name: str) -> Recipe:
    """A new instance of the recipe called `name`; UsageError listing the names otherwise."""
    _load()
    try:
        return _RECIPES[name]()
    except KeyError:
        raise UsageError(f"unknown image {name!r}; known images: {', '.join(_RECIPES)}") from None
