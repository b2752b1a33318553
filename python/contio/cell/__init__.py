"""Cells: N simultaneous database containers (one application, or several in equal
numbers), each with its own data directory and its own engine client container, whose
run phases start together; results per container and summed, with per-second cgroup
and host metrics beside the engine's time series.

API (see docs/docker.md, "Cells"):

    instances = plan_instances(["redis", "mariadb"], total=4, data_root=backend_dir)
    spec = CellSpec(instances, workload="workloada", threads=4,
                    properties={"recordcount": "10000"},
                    run_properties={"maxexecutiontime": "30", "operationcount": "0"})
    with DockerRuntime(experiment) as runtime:
        result = run_cell(runtime, spec, out_dir)
    result.status, result.reason, result.instances[i].run, result.run_throughput
"""

from contio.cell.plan import CellSpec, InstanceSpec, plan_instances
from contio.cell.results import CellResult, InstanceResult
from contio.cell.run import CellFailed, run_cell

__all__ = [
    "CellFailed",
    "CellResult",
    "CellSpec",
    "InstanceResult",
    "InstanceSpec",
    "plan_instances",
    "run_cell",
]
