"""`contio plan`: what an experiment will do — its cells, what it provisions, how long it
should take (`contio.run.pricing`) — without running or provisioning anything. Cells
the run would skip here (an unavailable backend or block I/O controls) are priced at
0 s. The spec's claims (`findings:`) are listed with whether this profile can test them
here.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass

from rich.console import Group
from rich.table import Table
from rich.text import Text

from contio.experiment.cell_order import describe_order, execution_order
from contio.experiment.findings import FindingSpec, level_text, selects
from contio.experiment.matrix import Cell
from contio.experiment.spec import ExperimentSpec
from contio.experiment.stand_ins import stand_in
from contio.qos.io_controls import process_controller
from contio.run.backend_pool import describe_plan, probe_unavailable
from contio.run.docker_preparation import DockerPlan
from contio.run.measured_prices import MeasuredPhases
from contio.run.pricing import (
    NOTHING_MEASURED,
    ORDER_COST_LIMIT,
    duration_text,
    estimates,
    order_cost,
    resolved_order,
)
from contio.run.stopping import planned_repetitions


def _cells(count: int) -> str:
    return f"{count} cell{'s' if count != 1 else ''}"


@dataclass(frozen=True)
class Plan:
    """What `contio run` would do with a spec."""

    spec: ExperimentSpec
    cells: list[Cell]
    profile: str | None
    docker: DockerPlan | None = None
    """The Docker engine and images of the docker cells (`contio.run.docker_preparation`)."""
    measured: MeasuredPhases = NOTHING_MEASURED
    """Phase times earlier runs of this experiment measured (`contio.run.measured_prices`)."""

    def total_seconds(self) -> tuple[float, float]:
        values = estimates(self.cells, self.spec, self.skipped(), measured=self.measured).values()
        return sum(v[0] for v in values), sum(v[1] for v in values)

    def skipped(self) -> frozenset[str]:
        """Keys of the cells `contio run` would skip on this host."""
        return frozenset(c.key for c in self.cells if self.skip_reason(c) is not None)

    def _controls_device(self, cell: Cell) -> str | None:
        """What a cell's controls would apply to, where that is known before provisioning:
        the level's `device`, or a local directory backend's base."""
        controls = self.spec.controls_for(cell.level)
        if controls is not None and controls.device:
            return controls.device
        definition = self.spec.backend_definitions()[cell.level["backend"]]
        if definition.get("type", "local-dir") == "local-dir":
            return str(definition.get("path") or tempfile.gettempdir())
        return None  # the backend is made at run time: `contio run` checks its disk then

    def skip_reason(self, cell: Cell) -> str | None:
        """Why `contio run` would skip the cell here (None: it runs)."""
        definition = self.spec.backend_definitions()[cell.level["backend"]]
        reason = probe_unavailable(definition)
        if reason:
            return f"backend unavailable: {reason}"
        controls = self.spec.controls_for(cell.level)
        if controls is not None:
            reason = process_controller().unavailable_reason(
                controls, device=self._controls_device(cell)
            )
            if reason:
                return f"io controls unavailable: {reason}"
        return None

    def _runs_here(self, cell: Cell) -> str:
        reason = self.skip_reason(cell)
        return "yes" if reason is None else f"skipped: {reason.split(':')[0]}"

    def claims(self) -> list[tuple[str, bool, str]]:
        """(finding id, whether this profile can test it here, why) per claim of the spec."""
        skipped = self.skipped()
        found = []
        for finding in self.spec.findings:
            found.append((finding.id, *self._testable(finding, skipped)))
        return found

    def _testable(self, finding: FindingSpec, skipped: frozenset[str]) -> tuple[bool, str]:
        chosen: list[Cell] = []
        for name, selector in finding.selectors():
            cells = [c for c in self.cells if selects(selector, c.level)]
            shown = ", ".join(f"{k}={level_text(v)}" for k, v in selector.items())
            if not cells:
                return False, f"this profile has no cell with {shown} ({name})"
            running = [c for c in cells if c.key not in skipped]
            if not running:
                reasons = sorted({self.skip_reason(c) or "" for c in cells})
                return False, f"its `{name}` cells are skipped on this host: {'; '.join(reasons)}"
            chosen += running
        # The `against` cells may run another system on purpose (MongoDB against Cassandra);
        # a degradation is about its member alone, whose standalone cells run only it.
        claimed = [c for c in chosen if selects(finding.cells, c.level)]
        if finding.kind == "degradation" and finding.member is not None:
            claimed = [c for c in self.cells if c.level.get("mix") == finding.member]
        targets = {m.target for c in claimed for m in c.members if m.kind == "ycsb"}
        standing = [s for s in (stand_in(finding.system, t) for t in sorted(targets)) if s]
        if standing:
            names = ", ".join(s.target for s in standing)
            return True, f"{_cells(len(chosen))}; on {names}, standing in for {finding.system}"
        return True, _cells(len(chosen))

    def _order_lines(self) -> list[Text]:
        """The order the run will use (`auto` resolved), and what the spread-out orders
        cost."""
        wanted = self.spec.order
        order = resolved_order(self.cells, self.spec, measured=self.measured)
        said = describe_order(order)
        if wanted.mode == "auto":
            limit = f"{100 * ORDER_COST_LIMIT:.0f} %"
            said += {
                "interleaved": f" (auto: interleaving costs at most {limit} more than random "
                "here)",
                "counterbalanced": f" (auto: interleaving would cost over {limit} more than "
                f"random here, counterbalanced passes at most {limit})",
            }.get(order.mode, f" (auto: interleaving and counterbalanced passes would cost "
                              f"over {limit} more than random here)")  # fmt: skip
        if order.mode == "fixed" or order.seed is not None:
            firsts = {"interleaved": " of the first round", "counterbalanced": " of the first pass"}
            first = firsts.get(order.mode, "")
            said += f"; the table lists the cells in the order{first} they will run"
        else:
            said += "; the seed is recorded in the results, the table lists the cells by index"
        lines = [Text(f"cell order: {said}")]
        if order.mode != "fixed":
            lines.append(Text(f"  {order_cost(self.cells, self.spec, self.measured).text()}"))
        return lines

    def _pricing(self) -> str:
        """How the durations were priced, for the footer."""
        if not self.measured.seconds:
            return "rough: operation-bound phases priced at assumed rates; time-bound phases exact"
        measured_cells = {key for key, _ in self.measured.seconds}
        priced = sum(c.key in measured_cells for c in self.cells)
        folders = ", ".join(f.name for f in self.measured.folders)
        return (
            f"{priced} of {len(self.cells)} cells priced from the phases measured in "
            f"{folders}; the others at assumed rates"
        )

    def render(self) -> Group:
        """The plan as rich renderables: backends, cells, duration."""
        spec = self.spec
        low_reps, high_reps = planned_repetitions(spec.stop, spec.repetition_count)
        used = {c.level["backend"] for c in self.cells}
        lines = [
            Text(
                f"experiment {spec.name}"
                + (f" (profile {self.profile})" if self.profile else "")
                + f": {len(self.cells)} cells, stop rule {spec.stop.rule}, "
                + (f"{low_reps}" if low_reps == high_reps else f"{low_reps}–{high_reps}")
                + " repetitions each"
            ),
            *self._order_lines(),
            Text("provisions:"),
        ]
        for name, definition in spec.backend_definitions().items():
            if name not in used:
                continue
            reason = probe_unavailable(definition)
            note = f" — unavailable here, its cells will be skipped: {reason}" if reason else ""
            lines.append(Text(f"  backend {name}: {describe_plan(definition)}{note}"))
        if self.docker is not None:
            lines.append(Text(f"  runtime docker: {self.docker.engine}"))
            for image, state in self.docker.images:
                lines.append(Text(f"    image {image}: {state}"))
        controlled = [n for n, c in spec.io_controls.items() if not c.empty]
        if any(c.level.get("io_controls") in controlled for c in self.cells):
            controller = process_controller()
            reason = controller.unavailable_reason(spec.io_controls[controlled[0]])
            lines.append(
                Text(
                    f"  block I/O groups via {controller.mechanism}"
                    + (f" — unavailable, those cells will be skipped: {reason}" if reason else "")
                )
            )
        table = Table(title=None, show_edge=False)
        keys: list[str] = []
        for cell in self.cells:
            keys += [k for k in cell.level if k not in keys]
        table.add_column("#", justify="right")
        for key in keys:
            table.add_column(key.removeprefix("properties."))
        table.add_column("read-only")
        table.add_column("runs here")
        table.add_column("est.", justify="right")
        per_cell = estimates(self.cells, spec, self.skipped(), measured=self.measured)
        shown = self.cells
        order = resolved_order(self.cells, spec, measured=self.measured)
        if order.mode == "fixed" or order.seed is not None:
            shown = execution_order(self.cells, order.mode, order.seed)
        for cell in shown:
            low, high = per_cell[cell.key]
            est = (
                duration_text(low) if low == high else f"{duration_text(low)}–{duration_text(high)}"
            )
            table.add_row(
                str(cell.index),
                *[str(cell.level.get(k, "")) for k in keys],
                "yes" if cell.read_only else "no",
                self._runs_here(cell),
                est,
            )
        low, high = self.total_seconds()
        total = (
            duration_text(low) if low == high else f"{duration_text(low)} – {duration_text(high)}"
        )
        footer = Text(f"estimated duration: {total} ({self._pricing()})")
        claims = self.claims()
        if not claims:
            return Group(*lines, table, footer)
        listed = [
            Text(
                f"claims (findings) this profile can test here: {sum(c[1] for c in claims)} of {len(claims)}"
            )
        ]
        for finding_id, testable, why in claims:
            listed.append(
                Text(f"  {finding_id}: {'can test' if testable else 'cannot test'} — {why}")
            )
        return Group(*lines, table, footer, *listed)
