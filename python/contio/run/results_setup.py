"""Opening a run's results before its first cell: a new folder (the spec, the host, the
cells and the order they will run in), or the folder a resume goes on with (its
repetitions checked against the index, its recorded order kept)."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contio.engine.invocation import engine_version
from contio.experiment.cell_order import describe_order
from contio.experiment.matrix import Cell
from contio.experiment.parts import CellOrder
from contio.experiment.spec import ExperimentSpec
from contio.machine import describe_host
from contio.results.folder import ResultsFolder
from contio.results.index import ResultsIndex
from contio.run.identity import spec_fingerprint
from contio.run.measured_prices import measured_phases
from contio.run.pricing import resolved_order

ORDER_META = "order"
"""The index meta key holding the cell order a folder runs in (`CellOrder` as JSON)."""


def experiment_id(name: str) -> str:
    """A run's id for the labels and names of its Docker resources: short, because a
    container's name is the host name its clients resolve (a DNS label: 63 characters)."""
    return f"{name[:20]}-{uuid.uuid4().hex[:8]}"


def drawn_order(order: CellOrder) -> CellOrder:
    """`order` (resolved: not `auto`) with a seed: the spec's, or one drawn now for a
    random or interleaved order without one."""
    if order.mode != "fixed" and order.seed is None:
        return CellOrder(mode=order.mode, seed=secrets.randbelow(2**31))
    return order


def recorded_order(index: ResultsIndex) -> CellOrder:
    """The order a results folder's cells run in; folders made before the order was
    recorded ran in the cells' own order (`fixed`)."""
    stored = index.meta(ORDER_META)
    return CellOrder(**stored) if stored else CellOrder(mode="fixed")


@dataclass(frozen=True)
class OpenedResults:
    """A run's results folder and index, and the order its cells run in."""

    folder: ResultsFolder
    index: ResultsIndex
    order: CellOrder


def resume_results(
    folder_path: Path, spec: ExperimentSpec, echo: Callable[[str], None]
) -> OpenedResults:
    """The folder a resume goes on with, in the order it was started with."""
    folder, index = ResultsFolder(folder_path), ResultsIndex.open(folder_path)
    repaired = folder.sync_repetitions(index.phases())
    if repaired:
        echo(f"warning: {repaired}")
    order = recorded_order(index)
    wanted = spec.order
    other_mode = wanted.mode not in ("auto", order.mode)
    if other_mode or wanted.seed not in (None, order.seed):
        echo(
            f"warning: {folder.path} goes on in the order it was started with "
            f"({describe_order(order)}), not the spec's {describe_order(wanted)}"
        )
    return OpenedResults(folder, index, order)


def new_results(
    results_root: Path,
    spec: ExperimentSpec,
    spec_text: str,
    cells: list[Cell],
    profile: str | None,
) -> OpenedResults:
    """A new folder under `results_root` with the spec, the host and the cells, and the
    order drawn for them (priced as `contio plan` prices it: from what earlier runs of
    this spec measured where there are any, so the run takes the order the plan said)."""
    measured = measured_phases(results_root, spec_fingerprint(spec))
    folder = ResultsFolder.create(results_root, spec.name)
    index = ResultsIndex.create(folder.path)
    order = drawn_order(resolved_order(cells, spec, measured=measured))
    index.set_meta(ORDER_META, order.model_dump())
    folder.write_text("spec.yaml", spec_text)
    recorded = spec.model_copy(update={"order": order})
    folder.write_json("spec.json", recorded.model_dump(mode="json"))
    folder.write_json("host.json", describe_host(engine_version()))
    index.set_meta("profile", profile)
    index.set_meta("spec_fingerprint", spec_fingerprint(spec))
    index.add_cells([(c.key, c.index, c.label, c.level, len(c.members)) for c in cells])
    return OpenedResults(folder, index, order)


def drop_if_unused(folder: ResultsFolder, index: ResultsIndex) -> bool:
    """Removes a new results folder in which no phase was recorded (the run was refused
    or failed before its first phase): nothing in it was measured. Whether it did."""
    if index.phases():
        return False
    index.close()
    folder.remove_unused()
    return True
