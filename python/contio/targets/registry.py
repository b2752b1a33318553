"""The database targets that run as containers, by name. Each module registers with `@register`.

The engine's own targets (null and the embedded engines) are in `contio.targets.engine_targets`.
"""

from __future__ import annotations

import importlib

from contio.errors import UsageError
from contio.targets.base import DatabaseTarget

_TARGETS: dict[str, type[DatabaseTarget]] = {}
_MODULES = ("mariadb", "postgres", "redis", "cassandra", "ferretdb", "mongodb")


def register(cls: type[DatabaseTarget]) -> type[DatabaseTarget]:
    """Class decorator: make database target `cls` available by its `name`."""
    _TARGETS[cls.name] = cls
    return cls


def _load() -> None:
    for module in _MODULES:
        importlib.import_module(f"contio.targets.{module}")


def names() -> list[str]:
    """Every database target's name."""
    _load()
    return list(_TARGETS)


def offline_names() -> list[str]:
    """The targets contio has an offline image for (every one but `mongodb`)."""
    _load()
    return [name for name, cls in _TARGETS.items() if cls.recipe is not None]


def target(name: str) -> DatabaseTarget:
    """A new instance of the target `name`; UsageError listing the known names otherwise."""
    _load()
    try:
        return _TARGETS[name]()
    except KeyError:
        raise UsageError(
            f"unknown database target {name!r}; known targets: {', '.join(_TARGETS)}"
        ) from None
