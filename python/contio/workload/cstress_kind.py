"""The cassandra-stress-like workload kind: `contio-engine cstress write|read|mixed`.

A spec names it as a workload entry (see `docs/experiments.md`):

    {kind: cassandra-stress, mode: write}                # name: cassandra-stress-write
    {kind: cassandra-stress, mode: read, population: 100000}
    {kind: cassandra-stress, mode: mixed, ratio: {write: 1, read: 3}}

It runs against the `cassandra` target only. The table is cassandra-stress's
(`keyspace1.standard1`: a 10-byte blob key, `columns` blob columns of `column_size`
bytes, 5 × 34 by default). The population is partitions 1..`population` (default: the
spec's `recordcount`, else cassandra-stress's 1,000,000). Load = `cstress write` of
every partition once, in sequence (for every mode: reads need the data, and writes then
overwrite partitions that exist, run after run); run = `cstress MODE` for the stop
rule's time or operation count (the population once under `stop: {rule: workload}`):
writes visit the population in sequence, reads and mixed draw from cassandra-stress's
default gaussian over it, at consistency `consistency` (default LOCAL_ONE). A read of a
partition that was never written is an error, and stops the run, as in the real tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contio.errors import FileWorkloadError
from contio.workload.file_kinds import EngineCall, has_phase
from contio.workload.files import WorkloadRef

KIND = "cassandra-stress"
CSTRESS_TARGETS = ("cassandra",)
"""The spec targets a `cassandra-stress` workload runs against."""

MODES = ("write", "read", "mixed")
ALLOWED_KEYS = (
    "kind", "name", "mode", "population", "ratio", "columns", "column_size", "consistency",
)  # fmt: skip
CONSISTENCY_LEVELS = (
    "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_ONE", "LOCAL_QUORUM", "EACH_QUORUM", "ANY",
)  # fmt: skip
DEFAULT_POPULATION = 1_000_000
"""cassandra-stress's population when nothing sets one."""

# What `contio-engine cstress` takes as `-p` (its `cstress::config::PROPERTIES`).
ENGINE_PROPERTIES = frozenset(
    {
        "status.interval", "measurementtype", "hdrhistogram.percentiles",
        "measurement.histogram.verbose", "histogram.buckets", "timeseries.granularity",
        "measurement.raw.output_file", "measurement.raw.no_summary", "hdrhistogram.fileoutput",
        "hdrhistogram.output.path", "label", "startbarrier.ready", "startbarrier.go",
        "startbarrier.timeout",
    }
)  # fmt: skip
# The binding's connection properties, as cassandra-stress options.
CONNECTION_OPTIONS = {
    "cassandra.host": ("-node", ""),
    "cassandra.port": ("-port", "native="),
    "cassandra.user": ("-mode", "user="),
    "cassandra.password": ("-mode", "password="),
}


def _whole(entry: Mapping[str, Any], key: str, low: int, high: int) -> int | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FileWorkloadError(f"{key}: a whole number from {low} to {high}, not {value!r}")
    return value


def _ratio(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not value or set(value) - {"write", "read"}:
        raise FileWorkloadError(
            f"ratio: a mapping of write and read to weights ({{write: 1, read: 3}}), not {value!r}"
        )
    weights = {}
    for op in ("write", "read"):
        weight = value.get(op, 0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise FileWorkloadError(f"ratio.{op}: a weight >= 0, not {weight!r}")
        weights[op] = weight
    if weights["write"] + weights["read"] <= 0:
        raise FileWorkloadError("ratio: give write or read a weight above 0")
    return f"write={weights['write']:g},read={weights['read']:g}"


def cstress_workload(entry: Mapping[str, Any]) -> WorkloadRef:
    """The `WorkloadRef` of a `{kind: cassandra-stress, mode: …}` entry;
    `FileWorkloadError` naming the key and what it allows otherwise."""
    extra = sorted(set(entry) - set(ALLOWED_KEYS))
    if extra:
        raise FileWorkloadError(
            f"unknown key {extra[0]!r}; allowed keys for {KIND}: {', '.join(ALLOWED_KEYS)}"
        )
    mode = entry.get("mode")
    if mode not in MODES:
        raise FileWorkloadError(f"mode: one of {', '.join(MODES)}, not {mode!r}")
    if entry.get("ratio") is not None and mode != "mixed":
        raise FileWorkloadError(f"ratio: only mode mixed takes a ratio, not mode {mode}")
    consistency = entry.get("consistency")
    if consistency is not None and consistency not in CONSISTENCY_LEVELS:
        raise FileWorkloadError(
            f"consistency: one of {', '.join(CONSISTENCY_LEVELS)}, not {consistency!r}"
        )
    name = entry.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        raise FileWorkloadError(f"name: must be a non-empty string, not {name!r}")
    population = _whole(entry, "population", 1, 2**40 - 1)
    columns = _whole(entry, "columns", 1, 1024)
    column_size = _whole(entry, "column_size", 0, 1 << 20)
    options = (
        ("mode", mode),
        ("population", None if population is None else str(population)),
        ("ratio", _ratio(entry.get("ratio"))),
        ("columns", None if columns is None else str(columns)),
        ("column_size", None if column_size is None else str(column_size)),
        ("consistency", consistency),
    )
    return WorkloadRef(name or f"{KIND}-{mode}", None, KIND, options)


def population(workload: WorkloadRef, properties: Mapping[str, str]) -> str:
    """The partitions the workload visits: its own `population`, else the spec's
    `recordcount`, else cassandra-stress's default."""
    own = dict(workload.options).get("population")
    return own or properties.get("recordcount") or str(DEFAULT_POPULATION)


def _stop_option(properties: Mapping[str, str], size: str) -> str:
    """`n=` or `duration=` from the stop rule's properties; the population once without."""
    count = properties.get("operationcount", "0")
    seconds = properties.get("maxexecutiontime", "0")
    if count not in ("", "0"):
        return f"n={count}"
    if seconds not in ("", "0"):
        return f"duration={seconds}s"
    return f"n={size}"


@dataclass(frozen=True)
class CstressKind:
    """cassandra-stress's write, read and mixed commands on Cassandra: load, then run."""

    name: str = KIND
    phases: tuple[str, ...] = ("load", "run")

    def engine_args(self, phase: str, call: EngineCall) -> list[str]:
        """`cstress write|read|mixed cassandra n=…|duration=… cl=… -pop … -col … -rate
        threads=N -node HOST -port native=PORT -p k=v… -s -json PATH` (no cleanup phase)."""
        if not has_phase(self, phase):
            return []
        options = dict(call.workload.options)
        mode = options["mode"] or "write"
        size = population(call.workload, call.properties)
        if phase == "load":
            command, stop, pop = "write", f"n={size}", f"seq=1..{size}"
        else:
            command, stop = mode, _stop_option(call.properties, size)
            pop = f"seq=1..{size}" if mode == "write" else f"dist=GAUSSIAN(1..{size})"
        args = ["cstress", command, "cassandra", stop]
        if options.get("consistency"):
            args.append(f"cl={options['consistency']}")
        if command == "mixed" and options.get("ratio"):
            args.append(f"ratio({options['ratio']})")
        args += ["-pop", pop, "-col"]
        args.append(f"n=FIXED({options.get('columns') or 5})")
        args.append(f"size=FIXED({options.get('column_size') or 34})")
        args += ["-rate", f"threads={call.threads}"]
        groups: dict[str, list[str]] = {}
        for key, (group, prefix) in CONNECTION_OPTIONS.items():
            if call.properties.get(key):
                groups.setdefault(group, []).append(prefix + call.properties[key])
        for group, values in groups.items():
            args += [group, *values]
        for key, value in call.properties.items():
            if key in ENGINE_PROPERTIES:
                args += ["-p", f"{key}={value}"]
        return [*args, "-s", "-json", str(call.json_path)]

    def check_calls(self, call: EngineCall) -> list[list[str]]:
        """The load with the real options: the engine checks them (exit 2), then fails
        to reach the server the check names (exit 1), before writing anything."""
        return [self.engine_args("load", call)]

    def writes(self, workload: WorkloadRef, properties: Mapping[str, str]) -> bool:
        return dict(workload.options).get("mode") != "read"

    def dataset(self, workload: WorkloadRef, properties: Mapping[str, str]) -> tuple:
        options = dict(workload.options)
        return (
            population(workload, properties),
            options.get("columns") or "5",
            options.get("column_size") or "34",
        )
