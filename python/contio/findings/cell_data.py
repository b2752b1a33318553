"""The numbers a claim is tested on: per cell, its metric per repetition.

A results folder's run rows (`contio.results.load`: one row per cell × repetition ×
container) become, per cell, the metric of each completed repetition summed over its
containers (a repetition counts when every container of the cell completed it), and
each container's own value for shares. The cells' factor levels and the targets their
containers ran come from the results index and the spec, not from the rows: a row's
`target` is the engine's binding (`mongodb` for FerretDB), not the target the spec named.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contio.experiment.findings import level_text, selects
from contio.results.repetitions import complete_frame

METRIC_COLUMNS = {
    "ops_per_sec": ("steady_ops_per_sec",),
    "mib_per_sec": ("read_mib_per_sec", "written_mib_per_sec"),
    "read_mib_per_sec": ("read_mib_per_sec",),
    "written_mib_per_sec": ("written_mib_per_sec",),
    "iops": ("iops",),
}
"""Each metric a claim may name (`auto` aside) → the run-row columns summed into it."""

METRIC_UNITS = {
    "ops_per_sec": "ops/s",
    "mib_per_sec": "MiB/s",
    "read_mib_per_sec": "MiB/s read",
    "written_mib_per_sec": "MiB/s written",
    "iops": "IOPS",
}


@dataclass(frozen=True)
class CellData:
    """One cell's levels, state and measured metric."""

    key: str
    index: int
    label: str
    levels: dict[str, Any]
    status: str
    reason: str
    targets: tuple[str, ...]
    """The targets its containers ran, as the spec names them (empty for file workloads)."""
    metric: str
    repetitions: tuple[int, ...]
    """Numbers of the completed repetitions, ascending."""
    totals: tuple[float, ...]
    """The metric per completed repetition, summed over the containers."""
    per_container: tuple[tuple[float, ...], ...]
    """Per completed repetition, each container's value in container order."""
    applications: tuple[str, ...] = ()
    """Per container, what it ran (`workloada on btree`): a mix's members (degradation)."""
    ops_per_container: tuple[tuple[float, ...], ...] = ()
    """Per completed repetition, each container's steady ops/s (whatever `metric` is):
    what a mix member is compared on when its standalone cell has another metric."""
    limit_use: tuple[tuple[float | None, ...], ...] = ()
    """Per completed repetition, each container's achieved bandwidth as a fraction of its
    block I/O throttle (bytes/s of the limited directions it used over their limits, from
    the row's `io_control`); None for a container without a throttle."""

    @property
    def measured(self) -> bool:
        return len(self.totals) > 0


def _file_io(rows: Any) -> bool:
    # Every container: a mix of a file workload and a database is compared on ops/s
    # (the database rows have no MiB/s), as `contio.stats.mix_comparison` does.
    return "iops" in rows and bool(rows["iops"].notna().all())


def chosen_metric(metric: str, rows: Any) -> str:
    """`auto` → MiB/s for file workloads (every row has file I/O rates), else ops/s."""
    if metric != "auto":
        return metric
    return "mib_per_sec" if _file_io(rows) else "ops_per_sec"


def cell_targets(levels: Mapping[str, Any], spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The targets a cell's containers run, from its levels and the spec's mixes."""
    own = levels.get("target")
    mix = levels.get("mix")
    members = (spec.get("mixes") or {}).get(mix) if mix is not None else None
    if not members:
        return () if own is None and "target" not in levels else (level_text(own),)
    found = []
    for member in members:
        target = member.get("target") if isinstance(member, Mapping) else None
        workload = member.get("workload") if isinstance(member, Mapping) else None
        kind = workload.get("kind", "ycsb") if isinstance(workload, Mapping) else "ycsb"
        if kind != "ycsb":
            continue  # a file workload runs no target
        found.append(level_text(target if target is not None else own))
    return tuple(dict.fromkeys(found))


MIB = 1 << 20


def _number(row: Any, column: str) -> float:
    value = row.get(column) if hasattr(row, "get") else None
    try:
        number = float(value) if value is not None else math.nan
    except (TypeError, ValueError):
        return math.nan
    return number


def limit_use(row: Any) -> float | None:
    """A run row's achieved bandwidth over its throttle: the directions (read, write)
    with a bytes/s limit that moved data, their bytes/s over the sum of their limits
    (every limited direction when none moved data); None without a throttle."""
    try:
        control = json.loads(row.get("io_control") or "{}")
    except (TypeError, ValueError):
        return None
    limits = control.get("limits") if isinstance(control, dict) else None
    if not isinstance(limits, dict):
        return None
    pairs = []
    for direction, column in (
        ("read_bps", "read_mib_per_sec"),
        ("write_bps", "written_mib_per_sec"),
    ):
        limit = limits.get(direction)
        if isinstance(limit, (int, float)) and limit > 0:
            achieved = _number(row, column)
            pairs.append((0.0 if math.isnan(achieved) else achieved * MIB, float(limit)))
    if not pairs:
        return None
    active = [p for p in pairs if p[0] > 0] or pairs
    return sum(a for a, _ in active) / sum(lim for _, lim in active)


def application(row: Any) -> str:
    """What a run row's container ran: `<workload> on <target>` (the workload alone
    for file workloads), as `contio.stats.mix_comparison` names a mix's members."""
    target = row.get("target")
    if target is None or target == "" or (isinstance(target, float) and math.isnan(target)):
        return str(row.get("workload"))
    return f"{row.get('workload')} on {target}"


def cell_data(
    frame: Any, cells: list[dict[str, Any]], spec: Mapping[str, Any], metric: str = "auto"
) -> list[CellData]:
    """Every cell of the index (`ResultsIndex.cells()`) with its measured `metric`."""
    ok = frame[frame["status"] == "ok"] if len(frame) else frame
    found = []
    for cell in cells:
        mine = ok[ok["cell_key"] == cell["cell_key"]] if len(ok) else ok
        chosen = chosen_metric(metric, mine) if len(mine) else "ops_per_sec"
        repetitions: list[int] = []
        totals: list[float] = []
        per_container: list[tuple[float, ...]] = []
        ops: list[tuple[float, ...]] = []
        uses: list[tuple[float | None, ...]] = []
        applications: tuple[str, ...] = ()
        if len(mine):
            columns = METRIC_COLUMNS[chosen]
            counted = complete_frame(mine, int(cell["members"]))
            for number, rows in counted.groupby("repetition"):
                records = [row for _, row in rows.iterrows()]
                values = [sum(_number(row, c) for c in columns) for row in records]
                if any(math.isnan(v) for v in values):
                    continue
                repetitions.append(int(number))
                totals.append(sum(values))
                per_container.append(tuple(values))
                ops.append(tuple(_number(row, "steady_ops_per_sec") for row in records))
                uses.append(tuple(limit_use(row) for row in records))
                applications = applications or tuple(application(row) for row in records)
        found.append(
            CellData(
                key=cell["cell_key"],
                index=int(cell["cell_index"]),
                label=str(cell["label"]),
                levels=dict(cell["levels"]),
                status=str(cell["status"]),
                reason=str(cell.get("reason") or ""),
                targets=cell_targets(cell["levels"], spec),
                metric=chosen,
                repetitions=tuple(repetitions),
                totals=tuple(totals),
                per_container=tuple(per_container),
                applications=applications,
                ops_per_container=tuple(ops),
                limit_use=tuple(uses),
            )
        )
    return found


def selected(cells: list[CellData], selector: Mapping[str, Any]) -> list[CellData]:
    """The cells whose levels include every level of `selector`."""
    return [c for c in cells if selects(selector, c.levels)]


def matching_key(cell: CellData, ignore: set[str]) -> tuple[tuple[str, str], ...]:
    """The cell's levels outside `ignore`, to match cells that differ only there."""
    return tuple(sorted((k, level_text(v)) for k, v in cell.levels.items() if k not in ignore))


def describe(levels: Mapping[str, Any], factors: list[str]) -> str:
    """`workload=workloada · threads=8` for the given factors (empty: `all cells`)."""
    parts = [f"{f.removeprefix('properties.')}={level_text(levels[f])}" for f in factors]
    return " · ".join(parts) if parts else "all cells"
