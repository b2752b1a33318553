"""The embedded storage engines `lsm` and `btree`: ops/s for workloads A and C.

Issue 2 asks for the numbers (no peer, no goal): each target is loaded once into a
fresh directory, then runs workload A and workload C at 1 and 16 threads for a fixed
time, through contio-engine directly. The targets come from another change; until
`contio-engine targets` lists them this benchmark is skipped with a message.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from benchmarks.context import BenchContext, workload_file
from benchmarks.engine_run import engine_targets, run_engine
from benchmarks.errors import BenchmarkSkipped
from benchmarks.report import Report, Row, Sample

NAME = "embedded"
TITLE = "Embedded engines lsm and btree, workloads A and C (contio-engine, no peer)"
PEER = "peer"

TARGETS = ("lsm", "btree")
WORKLOADS = ("workloada", "workloadc")
THREADS = (1, 16)
RECORDS = 100_000  # 1 KB records: ~100 MB per target, beyond the engines' small caches
SECONDS = 15
LOAD_THREADS = 2


def _missing_targets(ctx: BenchContext) -> list[str]:
    listing = engine_targets(ctx)
    return [t for t in TARGETS if not re.search(rf"(?m)^\W*{t}\b", listing)]


def _load(ctx: BenchContext, target: str, data: Path, records: int) -> None:
    args = [
        "load",
        target,
        "-P",
        str(workload_file("workloada")),
        "-p",
        f"recordcount={records}",
        "-p",
        f"{target}.dir={data}",
        "-threads",
        str(LOAD_THREADS),
    ]
    run = run_engine(ctx, args)
    ctx.progress(f"{target}: loaded {run.operations} records in {run.child.wall_seconds:.1f} s")


def _measure(
    ctx: BenchContext, target: str, workload: str, threads: int, data: Path, records: int
) -> Sample:
    seconds = ctx.scaled(SECONDS)
    args = [
        "run",
        target,
        "-P",
        str(workload_file(workload)),
        "-p",
        f"recordcount={records}",
        "-p",
        f"{target}.dir={data}",
        # Time-bound, not count-bound: the engines' speeds differ by orders of magnitude.
        "-p",
        "operationcount=0",
        "-p",
        f"maxexecutiontime={seconds}",
        "-threads",
        str(threads),
    ]
    run = run_engine(ctx, args, timeout=seconds * 10 + 120)
    by_type = run.document.get("operations_by_type", {})
    sample = Sample(
        tool="contio",
        case=f"{target} {workload} threads={threads}",
        metric="ops/s",
        value=run.throughput,
        unit="ops/s",
        metadata={
            "argv": run.child.argv,
            "wall_seconds": run.child.wall_seconds,
            "max_rss_kib": run.child.max_rss_kib,
            "load_before": run.child.load_before,
            "p99_us": {op: v.get("latency_us", {}).get("p99") for op, v in by_type.items()},
        },
    )
    ctx.progress(f"{sample.case}: {sample.value:,.0f} ops/s")
    return sample


def run(ctx: BenchContext) -> Report:
    """Loads each target, then measures A and C at each thread count."""
    missing = _missing_targets(ctx)
    if missing:
        raise BenchmarkSkipped(
            f"`contio-engine targets` does not list {', '.join(missing)} yet "
            "(the embedded targets land from another change)"
        )
    records = ctx.scaled(RECORDS, minimum=1000)
    report = Report(name=NAME, title=TITLE, peer=PEER)
    for target in TARGETS:
        data = Path(tempfile.mkdtemp(prefix=f"{target}-", dir=ctx.scratch()))
        try:
            _load(ctx, target, data, records)
            for threads in THREADS:
                for workload in WORKLOADS:
                    sample = _measure(ctx, target, workload, threads, data, records)
                    report.samples.append(sample)
                    report.rows.append(
                        Row(case=sample.case, metric="ops/s", unit="ops/s", contio=sample.value)
                    )
        finally:
            shutil.rmtree(data, ignore_errors=True)
    report.notes.append(
        f"recordcount={records} (1 KB records), {ctx.scaled(SECONDS)} s per cell, "
        f"targets' default cache settings, data on {ctx.scratch()}."
    )
    return report
