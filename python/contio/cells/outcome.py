"""What a cell produced: per instance (readiness, load and run results, cgroup totals
of its database and client containers) and summed over the cell."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from contio.cells.layout import InstanceSpec
from contio.engine.result import EngineResult
from contio.samplers.series import ContainerTotals


@dataclass
class InstanceResult:
    """One database container and its client."""

    instance: InstanceSpec
    ready_seconds: float | None = None
    load: EngineResult | None = None
    run: EngineResult | None = None
    database: ContainerTotals | None = None
    """cgroup totals of the database container over the run phase."""
    client: ContainerTotals | None = None
    """cgroup totals of the engine client container over the run phase."""


@dataclass
class CellResult:
    """A finished (or failed) cell. Files: `<instance>-load.json`, `<instance>-run.json`
    (engine documents, with their per-second time series) and `metrics.jsonl` (the
    per-second samples of `contio.samplers.series`) in `out_dir`."""

    status: Literal["ok", "failed"]
    reason: str | None
    out_dir: Path
    instances: list[InstanceResult] = field(default_factory=list)

    @property
    def metrics_path(self) -> Path:
        return self.out_dir / "metrics.jsonl"

    @property
    def run_operations(self) -> int:
        """Operations of every instance's run phase, summed."""
        return sum(i.run.operations for i in self.instances if i.run is not None)

    @property
    def run_throughput(self) -> float:
        """ops/s of the instances' run phases, summed (they ran at the same time)."""
        return sum(i.run.throughput_ops_per_sec for i in self.instances if i.run is not None)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (what `cell.json` holds)."""

        def one(i: InstanceResult) -> dict[str, Any]:
            return {
                "name": i.instance.name,
                "target": i.instance.target,
                "data_dir": str(i.instance.data_dir) if i.instance.data_dir else None,
                "ready_seconds": i.ready_seconds,
                "load_status": i.load.status if i.load else None,
                "run_status": i.run.status if i.run else None,
                "run_operations": i.run.operations if i.run else None,
                "run_throughput_ops_per_sec": i.run.throughput_ops_per_sec if i.run else None,
                "database_cgroup": asdict(i.database) if i.database else None,
                "client_cgroup": asdict(i.client) if i.client else None,
            }

        return {
            "schema": "contio.cell.result/1",
            "status": self.status,
            "reason": self.reason,
            "run_operations": self.run_operations,
            "run_throughput_ops_per_sec": self.run_throughput,
            "instances": [one(i) for i in self.instances],
        }
