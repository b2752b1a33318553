"""The TPC-C-like workload kind: `contio-engine tpcc load|run TARGET …`.

A spec names it as a workload entry (see `docs/experiments.md`):

    {kind: tpcc, warehouses: 4}              # name defaults to `tpcc-4w`
    {kind: tpcc, name: tpcc-small, warehouses: 1}

It runs against a database target's server, `mariadb` or `postgres` only (the engine's
`mysql` and `postgres` bindings). Load = `tpcc load` (creates the nine tables and loads
the warehouses), run = `tpcc run` (one terminal per thread). Spec properties that the
engine's `tpcc` commands know (`tpcc.*`, the stop rule, status and measurement
properties, the binding's `mysql.*`/`postgres.*`) are passed on; YCSB's (`recordcount`,
…) do not apply and are left out. A run's throughput in the results is the engine's
transactions per second; `tpmC` (New-Orders per minute) is the `tpmc` column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from contio.errors import FileWorkloadError
from contio.workload.file_kinds import EngineCall, has_phase
from contio.workload.files import WorkloadRef

TPCC_TARGETS = ("mariadb", "postgres")
"""The spec targets a `tpcc` workload runs against."""

ALLOWED_KEYS = ("kind", "name", "warehouses")

# What `contio-engine tpcc` accepts besides its binding's namespace (see its
# `tpcc::config::PROPERTIES`); `warehouses` comes from the workload entry.
ENGINE_PROPERTIES = frozenset(
    {
        "operationcount", "maxexecutiontime", "status.interval", "measurementtype",
        "hdrhistogram.percentiles", "measurement.histogram.verbose", "histogram.buckets",
        "timeseries.granularity", "measurement.raw.output_file", "measurement.raw.no_summary",
        "hdrhistogram.fileoutput", "hdrhistogram.output.path", "label",
        "startbarrier.ready", "startbarrier.go", "startbarrier.timeout",
    }
)  # fmt: skip
ENGINE_PREFIXES = ("tpcc.", "mysql.", "postgres.")

# Properties that decide what the load writes (cells differing in them need their own load).
DATASET_PROPERTIES = ("tpcc.items", "tpcc.customers")


def tpcc_workload(entry: Mapping[str, Any]) -> WorkloadRef:
    """The `WorkloadRef` of a `{kind: tpcc, warehouses: N}` entry; `FileWorkloadError`
    naming the key otherwise."""
    extra = sorted(set(entry) - set(ALLOWED_KEYS))
    if extra:
        raise FileWorkloadError(
            f"unknown key {extra[0]!r}; allowed keys for tpcc: {', '.join(ALLOWED_KEYS)}"
        )
    warehouses = entry.get("warehouses")
    if isinstance(warehouses, bool) or not isinstance(warehouses, int) or warehouses < 1:
        raise FileWorkloadError(
            f"warehouses: the TPC-C scale, a whole number of warehouses >= 1, not {warehouses!r}"
        )
    name = entry.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        raise FileWorkloadError(f"name: must be a non-empty string, not {name!r}")
    return WorkloadRef(
        name or f"tpcc-{warehouses}w", None, "tpcc", (("warehouses", str(warehouses)),)
    )


def engine_properties(workload: WorkloadRef, properties: Mapping[str, str]) -> dict[str, str]:
    """The properties `contio-engine tpcc` gets: the workload's warehouses, then the
    spec's that it knows."""
    chosen = {k: v for k, v in workload.options if v is not None}
    for key, value in properties.items():
        if key in ENGINE_PROPERTIES or key.startswith(ENGINE_PREFIXES):
            chosen[key] = value
    return chosen


@dataclass(frozen=True)
class TpccKind:
    """TPC-C-like transactions on MariaDB or PostgreSQL: load, then run phases."""

    name: str = "tpcc"
    phases: tuple[str, ...] = ("load", "run")

    def engine_args(self, phase: str, call: EngineCall) -> list[str]:
        """`tpcc load|run TARGET -p k=v… -threads N -s -json PATH` (no cleanup phase)."""
        if not has_phase(self, phase):
            return []
        properties = engine_properties(call.workload, call.properties)
        if phase == "load":
            properties.pop("maxexecutiontime", None)  # the load runs to its end
            properties.pop("operationcount", None)
        args = ["tpcc", phase, call.target]
        for key, value in properties.items():
            args += ["-p", f"{key}={value}"]
        return [*args, "-threads", str(call.threads), "-s", "-json", str(call.json_path)]

    def check_calls(self, call: EngineCall) -> list[list[str]]:
        """The load with the real properties: the engine checks them (exit 2), then fails
        to reach the server the check names (exit 1), before writing anything."""
        return [self.engine_args("load", call)]

    def writes(self, workload: WorkloadRef, properties: Mapping[str, str]) -> bool:
        return True  # New-Order, Payment and Delivery change the data

    def dataset(self, workload: WorkloadRef, properties: Mapping[str, str]) -> tuple:
        scale = tuple((k, properties[k]) for k in DATASET_PROPERTIES if k in properties)
        return (workload.options, scale)
