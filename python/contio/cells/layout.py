"""A cell's database instances: which application, where its data lives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from contio.errors import UsageError
from contio.targets import registry


@dataclass(frozen=True)
class InstanceSpec:
    """One database container of a cell and the engine client that drives it."""

    name: str
    """Unique in the cell (`redis-0`); names its containers and result files."""
    target: str
    """A database target (`contio.targets.registry.names()`)."""
    data_dir: Path | None = None
    """Its own data directory on the backend; None: a named volume of the experiment."""


def plan_instances(
    targets: Sequence[str],
    total: int,
    data_root: Path | None = None,
    counts: Mapping[str, int] | None = None,
) -> list[InstanceSpec]:
    """`total` instances of `targets`: one target is a homogeneous cell, several share
    `total` equally (the first ones get the remainder) unless `counts` says otherwise.
    Each gets `data_root/<name>` as its data directory when `data_root` is given.
    """
    known = registry.names()
    for name in [*targets, *(counts or {})]:
        if name not in known:
            raise UsageError(
                f"cell target {name!r} is not a database target; known: {', '.join(known)}"
            )
    if counts is None:
        if not targets or total < 1:
            raise UsageError("a cell needs at least one target and a total of at least 1 instance")
        share, extra = divmod(total, len(targets))
        counts = {t: share + (1 if i < extra else 0) for i, t in enumerate(targets)}
    elif sum(counts.values()) != total:
        raise UsageError(f"cell counts {dict(counts)} do not add up to the total {total}")
    instances = []
    for target, count in counts.items():
        for i in range(count):
            name = f"{target}-{i}"
            data = data_root / name if data_root is not None else None
            instances.append(InstanceSpec(name=name, target=target, data_dir=data))
    return instances
