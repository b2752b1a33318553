"""The cells of an experiment: every combination of its factor levels, in run order.

A cell is one (target, workload, threads) combination. Cells that share a target
and a workload share one load: a load group loads fresh data once per repetition
and then runs each of its thread levels on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from contio.spec import ExperimentSpec
from contio.workloads import WorkloadRef


@dataclass(frozen=True)
class Cell:
    """One combination of factor levels; measured once per repetition."""

    index: int
    """1-based position in run order."""
    target: str
    workload: WorkloadRef
    threads: int

    @property
    def label(self) -> str:
        return f"{self.target} · {self.workload.name} · {self.threads} threads"


@dataclass(frozen=True)
class LoadGroup:
    """Cells that run on the same loaded data: one target and workload, all thread levels."""

    target: str
    workload: WorkloadRef
    cells: tuple[Cell, ...]

    @property
    def slug(self) -> str:
        """A file-name-safe label (`lsm-workloada`)."""
        return f"{self.target}-{self.workload.name}".replace("/", "_")


def load_groups(spec: ExperimentSpec) -> list[LoadGroup]:
    """The full factorial of the spec's levels: targets × workloads, then threads."""
    groups: list[LoadGroup] = []
    index = 0
    for target in spec.targets:
        for workload in spec.workloads:
            cells = []
            for threads in spec.threads:
                index += 1
                cells.append(Cell(index, target, workload, threads))
            groups.append(LoadGroup(target, workload, tuple(cells)))
    return groups


def cell_count(groups: list[LoadGroup]) -> int:
    """Number of cells over all groups."""
    return sum(len(g.cells) for g in groups)
