"""The process executor: containers run together, report ops/s so far, and leave no child."""

from __future__ import annotations

from datetime import datetime

from contio.cells.executor import ContainerPhase
from contio.cells.process_executor import ProcessCellExecutor
from contio.cells.progress import ops_per_sec_so_far, progress_file
from contio.engine.invocation import interpret_exit
from contio.qos.io_controls import NoIoController
from contio.workload.file_kinds import EngineCall
from contio.workload.files import WorkloadRef, packaged_workloads
from contio.workload.kinds import KINDS


def test_progress_lines_give_the_ops_so_far(tmp_path):
    progress = tmp_path / "e.progress.jsonl"
    progress.write_text(
        '{"elapsed_s": 1.0, "operations": 1000, "ops_per_sec": 1000.0}\n'
        '{"elapsed_s": 2.0, "operations": 3000, "ops_per_sec": 1500.0}\n'
        '{"elapsed_s": 3.0, "oper'  # a line still being written
    )
    assert ops_per_sec_so_far(progress) == 1500.0
    assert ops_per_sec_so_far(tmp_path / "absent") is None


def test_containers_of_a_phase_run_together(tmp_path, engine):
    workload = packaged_workloads()["workloadc"]
    containers = []
    for k in (1, 2):
        out = tmp_path / f"c{k}"
        call = EngineCall(
            target="null",
            workload=WorkloadRef("workloadc", workload),
            properties={
                "recordcount": "100",
                "operationcount": "0",
                "maxexecutiontime": "3",
                "status.interval": "1",
            },
            threads=1,
            json_path=out.with_suffix(".json"),
            data_dir=None,
            scratch=tmp_path,
        )
        args = KINDS["ycsb"].engine_args("run", call)
        containers.append(
            ContainerPhase(
                k,
                args,
                out.with_suffix(".json"),
                out.with_suffix(".txt"),
                out.with_suffix(".stderr"),
            )
        )
    seen: list[float] = []
    codes = ProcessCellExecutor().run_phase(engine, containers, NoIoController("x"), seen.append)
    assert codes == [0, 0]
    results = [interpret_exit(0, "", c.json) for c in containers]
    assert all(r.status == "ok" and r.operations > 0 for r in results)
    # Each runs 3 s: started less than 3 s apart, they overlapped rather than ran in turn.
    first, second = sorted(
        datetime.fromisoformat(r.started_at.replace("Z", "+00:00")) for r in results
    )
    assert (second - first).total_seconds() < 3
    assert any(rate > 0 for rate in seen)  # the progress lines reached the display
    for c in containers:  # written by the engine itself, as JSON lines
        last = progress_file(c.json).read_text().splitlines()[-1]
        assert '"ops_per_sec":' in last and '"operations":' in last
