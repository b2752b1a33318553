"""Releasing several resources where one failure must not keep the others held."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def release_each(actions: Iterable[Callable[[], None]]) -> None:
    """Call every action, even after one fails; then raise the first failure.

    Why not stop at the first: a backend that cannot be torn down, or an executor that
    cannot close, must not leave the next one's containers, mounts or cgroups behind."""
    errors: list[Exception] = []
    for action in actions:
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - release the others; re-raised below
            errors.append(exc)
    if errors:
        raise errors[0]
