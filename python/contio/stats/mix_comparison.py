"""Heterogeneous mixes against standalone: each member's degradation, and Jain's index.

The mixes of paper 003 (docs/papers.md).

A mix cell runs several applications side by side (`mixes:` in the spec); container k
of a cell with `containers` = c per application belongs to member (k − 1) // c of the
mix, and a member is identified by what its containers ran ("workloadc on lsm"). Its
standalone throughput is the cell whose mix has that application alone with every
other level equal (the same count of containers). Per complete repetition, a
member's throughput is the sum of its containers' steady ops/s.

Computed once here, from the rows of a results folder (`ResultsIndex.cells()` and
`phases("run")`, or `contio.results.load`), for the report's mix chart and conclusions,
summary.csv and `contio results`, so all three print the same numbers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contio.errors import StatisticsInputError
from contio.stats import Degradation, MixFairness, degradation, fairness_of, mean

MIX_FACTOR = "mix"


@dataclass(frozen=True)
class MixMember:
    """One application of a mix cell against its standalone cell."""

    name: str
    """The standalone cell's mix level (e.g. `read`): how the report names the member."""
    application: str
    """What its containers ran: "<workload> on <target>"."""
    mixed: tuple[float, ...]
    """Its ops/s in the mix, per complete repetition."""
    standalone: tuple[float, ...]
    degradation: Degradation

    @property
    def mixed_mean(self) -> float:
        return mean(list(self.mixed))

    @property
    def standalone_mean(self) -> float:
        return mean(list(self.standalone))


@dataclass(frozen=True)
class MixComparison:
    """A mix cell's members against standalone, and Jain's index over what each retained."""

    cell_key: str
    cell_index: int
    levels: dict[str, Any]
    members: tuple[MixMember, ...]
    """The members that have a standalone cell, in the mix's order."""
    fairness: MixFairness | None
    """None with fewer than two members compared."""

    @property
    def mix(self) -> str:
        return str(self.levels.get(MIX_FACTOR, ""))


def _member_samples(
    cell: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
) -> list[tuple[str, dict[int, float]]]:
    """(application, ops/s per complete repetition) of each member of a cell, in order."""
    per_member = int(cell["levels"].get("containers") or 1)
    by_repetition: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_repetition[int(row["repetition"])].append(row)
    complete = {r: found for r, found in by_repetition.items() if len(found) == cell["members"]}
    members: dict[int, tuple[str, dict[int, float]]] = {}
    for repetition, found in sorted(complete.items()):
        for row in found:
            part = (int(row["container"]) - 1) // per_member
            name = f"{row['workload']} on {row['target']}"
            sums = members.setdefault(part, (name, {}))[1]
            sums[repetition] = sums.get(repetition, 0.0) + float(row["steady_ops_per_sec"])
    return [members[part] for part in sorted(members)]


def _others(levels: Mapping[str, Any]) -> tuple[str, ...]:
    """The levels a standalone cell must share with a mix cell: all but the mix."""
    return tuple(f"{k}={v}" for k, v in sorted(levels.items()) if k != MIX_FACTOR)


def compare_mixes(
    cells: Iterable[Mapping[str, Any]], runs: Iterable[Mapping[str, Any]], confidence: float = 0.95
) -> list[MixComparison]:
    """Every mix cell with two or more applications against their standalone cells.

    `cells`: dicts with `cell_key`, `cell_index`, `levels`, `members` (the results
    index's cells); `runs`: run-phase rows with `cell_key`, `repetition`, `container`,
    `workload`, `target`, `status`, `steady_ops_per_sec`. Cells without a `mix` level
    give nothing; a member without a standalone cell is left out.
    """
    cells = [c for c in cells if MIX_FACTOR in c["levels"]]
    rows: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in runs:
        if row["status"] == "ok":
            rows[row["cell_key"]].append(row)
    samples = {c["cell_key"]: _member_samples(c, rows[c["cell_key"]]) for c in cells}
    alone: dict[tuple[str, ...], tuple[str, dict[int, float]]] = {}
    for cell in cells:
        if len(samples[cell["cell_key"]]) == 1:
            application, values = samples[cell["cell_key"]][0]
            key = (application, *_others(cell["levels"]))
            alone[key] = (str(cell["levels"][MIX_FACTOR]), values)
    found = []
    for cell in cells:
        if len(samples[cell["cell_key"]]) < 2:
            continue
        members = []
        seen: dict[str, int] = {}
        for application, values in samples[cell["cell_key"]]:
            standalone = alone.get((application, *_others(cell["levels"])))
            if standalone is None or not values or not standalone[1]:
                continue
            name, base = standalone
            # Two members of one application (a mix listing it twice): `read`, `read #2`.
            seen[name] = seen.get(name, 0) + 1
            name = name if seen[name] == 1 else f"{name} #{seen[name]}"
            mixed, base_values = tuple(values.values()), tuple(base.values())
            try:
                lost = degradation(mixed, base_values, name, confidence)
            except StatisticsInputError:
                continue  # a standalone of mean 0: nothing to compare with
            members.append(MixMember(name, application, mixed, base_values, lost))
        if not members:
            continue
        try:
            fairness = fairness_of([m.degradation for m in members])
        except StatisticsInputError:
            fairness = None  # one member compared, or every member lost everything
        found.append(
            MixComparison(
                cell["cell_key"], int(cell["cell_index"]), dict(cell["levels"]), tuple(members),
                fairness,
            )
        )  # fmt: skip
    return found
