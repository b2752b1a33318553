"""What an experiment's cells should take, for `contio plan`, the live view and the
choice of an `auto` order.

Durations are estimates: a time-bound phase takes its time; an operation-bound one is
priced at a rough rate per target (`ASSUMED_OPS_PER_SEC`, per client thread, at most
two threads' worth on a 2-core machine), a file workload's load at the bytes it lays
out over `ASSUMED_LAYOUT_BPS` (or the slow device's cap), plus a fixed start-up cost
per phase; earlier runs of the same spec price what they measured instead
(`contio.run.measured_prices`). Loads
(and the database servers that start with each) are counted by walking the repetitions
in the spec's cell order through the runner's load policy (`contio.run.loads`), so an
interleaved or counterbalanced order's extra loads are priced, and so is their cost over
a random order (`order_cost`), which also decides what an `auto` order becomes
(`resolved_order`). An
adaptive rule gives a range from its minimum to its maximum repetitions. Cells the run
would skip here (an unavailable backend or block I/O controls) are priced at 0 s. The
spec's claims (`findings:`) are listed with whether this profile can test them here.
"""

from __future__ import annotations

from dataclasses import dataclass

from contio.errors import QosConfigError
from contio.experiment.cell_order import repetition_sequence
from contio.experiment.matrix import Cell, Member
from contio.experiment.parts import CellOrder
from contio.experiment.spec import ExperimentSpec
from contio.qos.limits import parse_rate
from contio.run.loads import LoadedData, needs_load
from contio.run.measured_prices import MeasuredPhases
from contio.run.stopping import planned_repetitions
from contio.workload.file_kinds import FILE_KINDS, fio_run_seconds, laid_out_bytes

ASSUMED_OPS_PER_SEC = {"null": 1_000_000.0}
"""Rough ops/s per client thread by target; others use `DEFAULT_OPS_PER_SEC`."""
DEFAULT_OPS_PER_SEC = 10_000.0
PHASE_OVERHEAD_S = 0.3
TPCC_LOAD_S_PER_WAREHOUSE = 50.0
"""A TPC-C load's seconds per warehouse (~520,000 rows): two MariaDB loads of 5
warehouses beside two Cassandra loads took 249 s each here (2026-11-28, 2 cores). Not
`recordcount`: a TPC-C load's size is its warehouses."""
SERVER_START_S = {"cassandra": 60.0, "mariadb": 10.0, "postgres": 5.0, "ferretdb": 3.0}
"""Rough start-to-ready seconds of a database container (docker); others: 2 s."""
CONTAINER_OVERHEAD_S = 1.0
"""Creating and starting the engine client containers of a docker phase."""
ASSUMED_LAYOUT_BPS = 200e6
"""Bytes/s a file workload's load lays its files out at (a loop device on this machine's
disk writes ~200 MB/s directly); a slow loop device's own cap when it has one."""
SLOW_DEVICE_CAPS = ("device_write_bps", "device_bandwidth", "disk_bandwidth")


def _rate(target: str, threads: int) -> float:
    return ASSUMED_OPS_PER_SEC.get(target, DEFAULT_OPS_PER_SEC) * min(threads, 2)


def _number(properties: dict[str, str], key: str) -> float:
    try:
        return float(properties.get(key, "0"))
    except ValueError:
        return 0.0


def run_seconds(member: Member, spec: ExperimentSpec, backend: str | None = None) -> float:
    """Estimated seconds of one run phase of one container (a fio job that runs as its
    file says: its runtime, or its bytes at the rate files are laid out on `backend`)."""
    stop = spec.stop
    if stop.seconds is not None and stop.rule in ("fixed-time", "adaptive"):
        return stop.seconds
    if stop.operations is not None and stop.rule in ("fixed-ops", "adaptive"):
        return stop.operations / _rate(member.target, member.threads)
    if member.kind == "fio" and stop.rule == "workload":
        properties = dict(member.properties)
        return fio_run_seconds(member.workload, properties, _layout_bps(spec, backend))
    merged = member.merged_properties()
    limit = _number(merged, "maxexecutiontime")
    by_count = _number(merged, "operationcount") / _rate(member.target, member.threads)
    return min(limit, by_count) if limit > 0 and by_count > 0 else max(limit, by_count)


def load_seconds(member: Member, spec: ExperimentSpec, backend: str | None = None) -> float:
    """Estimated seconds of one load phase of one container (on `backend`, whose slow
    device, if it has one, sets how fast files are laid out)."""
    if member.kind in FILE_KINDS:
        laid_out = laid_out_bytes(member.kind, member.workload, dict(member.properties))
        return laid_out / _layout_bps(spec, backend)
    if member.kind == "tpcc":
        warehouses = dict(member.workload.options).get("warehouses") or "0"
        return float(warehouses) * TPCC_LOAD_S_PER_WAREHOUSE
    records = _number(member.merged_properties(), "recordcount")
    return records / _rate(member.target, spec.load_thread_count)


def _layout_bps(spec: ExperimentSpec, backend: str | None) -> float:
    definition = spec.backend_definitions().get(backend or "", {})
    for cap in SLOW_DEVICE_CAPS:
        if definition.get(cap):
            try:
                return float(parse_rate(cap, definition[cap]))
            except QosConfigError:
                break  # the backend's own check refuses it, naming the field
    return ASSUMED_LAYOUT_BPS


ORDER_COST_LIMIT = 0.25
"""How much longer than a random order an `auto` order may make a run and still be
interleaved (or, failing that, counterbalanced): interleaving spreads every cell over
the run (drift no longer reads as a difference between cells), worth a quarter more
time, not a half (paper 000's Cassandra groups under `load.reuse: always` reload and
restart their servers every round); counterbalanced passes cancel a steady drift for one
more load per group."""
PRICING_SEED = 0
"""The seed a random or interleaved order is priced with when the spec gives none (the
run draws its own): the loads a random order needs do not depend on it, an interleaved
one's hardly (only whether two rounds' pair boundary happens to keep one group)."""


@dataclass(frozen=True)
class Priced:
    """The seconds of every cell for one number of repetitions each, and the loads."""

    seconds: dict[str, float]
    """Per cell key: its run phases and the loads made for it."""
    loads: int


NOTHING_MEASURED = MeasuredPhases()


def _priced(
    cells: list[Cell],
    spec: ExperimentSpec,
    skipped: frozenset[str],
    repetitions: int,
    order: CellOrder,
    measured: MeasuredPhases = NOTHING_MEASURED,
) -> Priced:
    """`repetitions` repetitions of each cell, run in `order` (not `auto`): its run
    phases, and the loads (with the database servers' start) the load policy makes it
    wait for (`contio.run.loads.needs_load`, as the runner decides them). A phase that
    earlier runs of the experiment `measured` is priced at its measured median."""
    seed = order.seed if order.seed is not None else PRICING_SEED
    found = dict.fromkeys((c.key for c in cells), 0.0)
    loads = 0
    loaded: LoadedData | None = None
    for cell in repetition_sequence(cells, order.mode, seed, repetitions):
        if cell.key in skipped:
            continue  # the runner skips it before loading anything
        overhead = PHASE_OVERHEAD_S
        if cell.level.get("runtime") == "docker":
            overhead += CONTAINER_OVERHEAD_S
        if needs_load(spec.load.reuse, loaded, cell):
            load = measured.get(cell.key, "load")
            if load is None:
                # Containers lay their files out at once, sharing the device.
                files = sum(
                    load_seconds(m, spec, cell.level["backend"])
                    for m in cell.members
                    if m.kind in FILE_KINDS
                )
                records = max(load_seconds(m, spec) for m in cell.members)
                load = files if files else records
            load += overhead
            servers = [SERVER_START_S.get(m.target, 2.0) for m in cell.members if m.database]
            found[cell.key] += load + max(servers, default=0.0)  # servers start with each load
            loads += 1
            loaded = LoadedData(cell.load_key(), [cell.level["backend"]], [])
        assert loaded is not None
        run = measured.get(cell.key, "run")
        if run is None:
            run = max(run_seconds(m, spec, cell.level["backend"]) for m in cell.members)
        found[cell.key] += run + overhead
        if not cell.read_only:
            loaded.fresh = False
    return Priced(found, loads)


def estimates(
    cells: list[Cell],
    spec: ExperimentSpec,
    skipped: frozenset[str] = frozenset(),
    order: CellOrder | None = None,
    measured: MeasuredPhases = NOTHING_MEASURED,
) -> dict[str, tuple[float, float]]:
    """Per cell key, the fewest and most seconds it should take (loads included, each
    charged to the cell it is made for, in `order`, default the spec's, `auto` resolved);
    the cells in `skipped` (their backend or controls are unavailable here) take none."""
    order = resolved_order(cells, spec, order, measured)
    low_reps, high_reps = planned_repetitions(spec.stop, spec.repetition_count)
    low = _priced(cells, spec, skipped, low_reps, order, measured).seconds
    high = (
        low if high_reps == low_reps
        else _priced(cells, spec, skipped, high_reps, order, measured).seconds
    )  # fmt: skip
    return {key: (low[key], high[key]) for key in low}


@dataclass(frozen=True)
class OrderCost:
    """What the `interleaved` and `counterbalanced` orders cost over a `random` one for a
    spec, at each cell's fewest repetitions, every cell priced as if it runs."""

    random: Priced
    interleaved: Priced
    counterbalanced: Priced

    def extra(self, mode: str) -> float:
        """`mode`'s seconds over random's, as a fraction of random's."""
        base = sum(self.random.seconds.values())
        if base <= 0:
            return 0.0
        return sum(getattr(self, mode).seconds.values()) / base - 1

    def text(self) -> str:
        """ "interleaved rounds: 11 loads against random's 4 …, +47 %; counterbalanced
        passes: 8 loads …" or "cost nothing"."""
        base = self.random.loads
        if self.interleaved.loads <= base and self.extra("interleaved") < 0.005:
            return f"interleaved rounds cost nothing over random here ({base} loads)"
        said = []
        for mode, name in (("interleaved", "interleaved rounds"),
                           ("counterbalanced", "counterbalanced passes")):  # fmt: skip
            priced: Priced = getattr(self, mode)
            said.append(
                f"{name}: {priced.loads} loads against random's {base}, "
                f"{duration_text(sum(priced.seconds.values()))} against "
                f"{duration_text(sum(self.random.seconds.values()))} (+{100 * self.extra(mode):.0f} %)"
            )
        return "; ".join(said)


def order_cost(
    cells: list[Cell], spec: ExperimentSpec, measured: MeasuredPhases = NOTHING_MEASURED
) -> OrderCost:
    """`interleaved` and `counterbalanced` against `random` for this spec (`OrderCost`)."""
    low_reps, _ = planned_repetitions(spec.stop, spec.repetition_count)
    seed = spec.order.seed
    random_, interleaved, counterbalanced = (
        _priced(cells, spec, frozenset(), low_reps, CellOrder(mode=mode, seed=seed), measured)
        for mode in ("random", "interleaved", "counterbalanced")
    )
    return OrderCost(random_, interleaved, counterbalanced)


def resolved_order(
    cells: list[Cell],
    spec: ExperimentSpec,
    order: CellOrder | None = None,
    measured: MeasuredPhases = NOTHING_MEASURED,
) -> CellOrder:
    """`order` (default the spec's) with `auto` made `interleaved` when it costs at most
    `ORDER_COST_LIMIT` more than `random` for this spec (`order_cost`: more loads and
    database server starts where a group's data could have served several repetitions),
    else `counterbalanced` when that does, else `random`; the seed is kept (None: drawn
    when the run starts)."""
    order = order or spec.order
    if order.mode != "auto":
        return order
    cost = order_cost(cells, spec, measured)
    for mode in ("interleaved", "counterbalanced"):
        if cost.extra(mode) <= ORDER_COST_LIMIT:
            return CellOrder(mode=mode, seed=order.seed)
    return CellOrder(mode="random", seed=order.seed)


def duration_text(seconds: float) -> str:
    """ "1 h 05 min" or "4 min 10 s"."""
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {secs:02d} s"
