"""Storage backends (issue 5): direct-I/O throughput through the engine against fio, per backend.

For each backend on this machine — `local` (XFS on a loop device), `striped` (what
`method: auto` picks: btrfs RAID0 over 3 loop devices here, LVM where device-mapper
exists) and `gluster` with each of the five volume types on a 3-node one-machine
cluster — one job file per case is run by `fio` and by `contio-engine fio` on the same
file of the same mount, in the same run, the order alternating:

- sequential 1 MiB reads and writes (MiB/s),
- random 4 KiB reads and writes (IOPS),

all `direct=1`, `ioengine=psync`, one job. Goal: contio ≥ 0.95 × fio on every line.
Each backend is provisioned through contio's backend classes, measured, and torn
down before the next (benchmarks/backend_stack.py). How O_DIRECT behaves on Gluster's
FUSE mount, and the volume option used for it: docs/benchmarks.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.backend_stack import (
    BACKEND_CASES,
    BackendCase,
    check_host,
    gluster_cluster,
    provisioned,
    summary,
)
from benchmarks.child import run_checked
from benchmarks.context import BenchContext, require_tool
from benchmarks.engine_run import engine_accepts, run_engine
from benchmarks.errors import SetupError
from benchmarks.parsers import fio_rates
from benchmarks.report import Report, Row, Sample, judge_ratio, median_or_none

NAME = "backends"
TITLE = "Storage backends: direct-I/O throughput, contio-engine vs fio on the same mount"
PEER = "fio"

MIB = 1 << 20
DATA_FILE_SIZE = 128 * MIB
SECONDS = 3
RAMP_SECONDS = 1
GOAL = 0.95


@dataclass(frozen=True)
class IoCase:
    """One line per backend: a direction, a pattern and a block size."""

    label: str
    rw: str
    bs: str
    metric: str
    """MiB/s (sequential) or IOPS (random)."""

    @property
    def direction(self) -> str:
        """The direction: read or write."""
        return "write" if "write" in self.rw else "read"


IO_CASES = (
    IoCase("seq read 1 MiB", "read", "1m", "MiB/s"),
    IoCase("seq write 1 MiB", "write", "1m", "MiB/s"),
    IoCase("rand read 4 KiB", "randread", "4k", "IOPS"),
    IoCase("rand write 4 KiB", "randwrite", "4k", "IOPS"),
)


def fio_job_text(case: IoCase, data: Path, size: int, seconds: int, ramp: int) -> str:
    """The job file both tools run: direct I/O on the whole existing data file."""
    return "\n".join(
        [
            "[global]",
            f"filename={data}",
            f"rw={case.rw}",
            f"bs={case.bs}",
            "ioengine=psync",
            "iodepth=1",
            "direct=1",
            f"size={size}",
            # Pure random offsets in both tools (contio keeps no map of blocks done).
            "norandommap=1",
            "randrepeat=0",
            "time_based=1",
            f"runtime={seconds}",
            f"ramp_time={ramp}",
            "group_reporting=1",
            f"[{case.rw}]",
            "",
        ]
    )


def _write_data_file(path: Path, size: int) -> None:
    """Random bytes, fsynced: neither tool lays the file out, both find it complete."""
    with path.open("wb") as handle:
        for _ in range(size // MIB):
            handle.write(os.urandom(MIB))
        handle.flush()
        os.fsync(handle.fileno())


def _value(case: IoCase, per_second: float, bytes_per_second: float) -> float:
    return bytes_per_second / MIB if case.metric == "MiB/s" else per_second


def _fio(ctx: BenchContext, job: Path, case: IoCase) -> tuple[float, dict]:
    child = run_checked([str(require_tool("fio")), "--output-format=json", str(job)])
    rates = fio_rates(child.stdout, case.direction)
    value = _value(case, rates.iops, rates.bytes_per_sec)
    return value, {"argv": child.argv, "load_before": child.load_before,
                   "cpu_seconds": child.cpu_seconds, "ios": rates.total_ios}  # fmt: skip


def _contio(ctx: BenchContext, job: Path, case: IoCase) -> tuple[float, dict]:
    run = run_engine(ctx, ["fio", str(job)])
    io = run.document["io"]
    if case.direction == "read":
        value = _value(case, io["reads_per_sec"], io["read_mib_per_sec"] * MIB)
    else:
        value = _value(case, io["writes_per_sec"], io["written_mib_per_sec"] * MIB)
    return value, {"argv": run.child.argv, "load_before": run.child.load_before,
                   "cpu_seconds": run.child.cpu_seconds, "ios": run.operations}  # fmt: skip


Runner = Callable[[BenchContext, Path, IoCase], tuple[float, dict]]
TOOLS: dict[str, Runner] = {"fio": _fio, "contio": _contio}


def _measure_backend(
    ctx: BenchContext, report: Report, backend_case: BackendCase, backend, turn: int
) -> dict[str, dict[str, float | None]]:
    """Every I/O case on one provisioned backend: {case label: {tool: median value}}."""
    directory = backend.data_location("bench").path
    data = directory / "data"
    size = ctx.scaled(DATA_FILE_SIZE // MIB, minimum=8) * MIB
    _write_data_file(data, size)
    measured: dict[str, dict[str, float | None]] = {}
    for index, case in enumerate(IO_CASES):
        job = directory / f"{case.rw}.fio"
        job.write_text(fio_job_text(case, data, size, ctx.scaled(SECONDS), RAMP_SECONDS))
        values: dict[str, list[float]] = {}
        for round_number in range(ctx.repeat):
            order = ["fio", "contio"]
            if (turn + index + round_number) % 2:
                order.reverse()
            for tool in order:
                value, metadata = TOOLS[tool](ctx, job, case)
                values.setdefault(tool, []).append(value)
                report.samples.append(
                    Sample(tool, f"{backend_case.label}: {case.label}", case.metric, value,
                           case.metric, {**metadata, "backend": backend_case.label})
                )  # fmt: skip
                ctx.progress(
                    f"{backend_case.label}, {case.label}: {tool} {value:,.1f} {case.metric}"
                )
        measured[case.label] = {tool: median_or_none(values.get(tool)) for tool in TOOLS}
    return measured


def _rows(results: dict[str, dict[str, dict[str, float | None]]]) -> list[Row]:
    """Rows grouped by I/O case, backends side by side (the Gluster types adjacent)."""
    rows = []
    for case in IO_CASES:
        for label, measured in results.items():
            contio, fio = measured[case.label]["contio"], measured[case.label]["fio"]
            rows.append(
                Row(case=f"{case.label} · {label}", metric=case.metric, unit=case.metric,
                    contio=contio, peer=fio, goal=f"ratio ≥ {GOAL:g}",
                    passed=judge_ratio(contio, fio, GOAL))
            )  # fmt: skip
    return rows


def _run_case(
    ctx: BenchContext,
    report: Report,
    case: BackendCase,
    turn: int,
    results: dict[str, dict[str, dict[str, float | None]]],
) -> None:
    ctx.progress(f"{case.label}: provisioning")
    with provisioned(case) as backend:
        described = backend.describe()
        report.context.setdefault("backends", {})[case.label] = described
        report.notes.append(f"{case.label}: {summary(described)}")
        results[case.label] = _measure_backend(ctx, report, case, backend, turn)


def _run_all(ctx: BenchContext, report: Report) -> None:
    from contio.errors import ContioError, Interrupted

    results: dict[str, dict[str, dict[str, float | None]]] = {}
    try:
        for turn, case in enumerate(c for c in BACKEND_CASES if not c.is_gluster):
            _run_case(ctx, report, case, turn, results)
        gluster = [c for c in BACKEND_CASES if c.is_gluster]
        ctx.progress(f"gluster: building the 3-node cluster for {len(gluster)} volume types")
        with gluster_cluster():
            for turn, case in enumerate(gluster):
                _run_case(ctx, report, case, turn, results)
    except Interrupted:
        raise
    except (ContioError, SetupError) as exc:
        # The rows measured so far are kept; the set-up error makes the exit code 2.
        report.broken = str(exc)
    finally:
        report.rows = _rows({k: v for k, v in results.items() if v})


def run(ctx: BenchContext) -> Report:
    """Provisions each backend in turn, runs every case with both tools, tears it down."""
    from contio.errors import Interrupted
    from contio.signals import interrupts_raise

    require_tool("fio")
    check_host()
    if not engine_accepts(ctx, ["fio", "--help"]):
        raise SetupError("contio-engine has no `fio` subcommand")
    report = Report(name=NAME, title=TITLE, peer=PEER)
    try:
        # SIGINT and SIGTERM unwind through the `finally` blocks that unmount, delete
        # volumes and remove the cluster; a second Ctrl-C is ignored while they run.
        with interrupts_raise():
            _run_all(ctx, report)
    except Interrupted:
        raise KeyboardInterrupt from None
    if ctx.repeat > 1:
        report.notes.append(f"median of {ctx.repeat} rounds per line, order alternating")
    report.notes.append(
        f"each line: {ctx.scaled(SECONDS)} s after a {RAMP_SECONDS} s ramp, psync, one job, "
        f"direct=1, on a {ctx.scaled(DATA_FILE_SIZE // MIB, minimum=8)} MiB file written "
        "and fsynced first; Gluster volumes with performance.strict-o-direct=on"
    )
    return report
