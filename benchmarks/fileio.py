"""File I/O against fio and sysbench (issues 3 and 30), each line on the same file in one run.

- fio lines (4 KiB random reads from the page cache, psync, 1 and 2 jobs; io_uring,
  iodepth 32, O_DIRECT, on loop-backed XFS): `contio-engine fio` runs the real fio and
  reads its report, so the goal is that wrapping it costs nothing: IOPS within ±10 % of
  fio's own run of the same job file.
- sysbench fileio rndrw, 1 GB, 30 s, sync mode: reads/s and writes/s ≥ 0.95× sysbench
  (contio's own I/O core).

Each line runs at least 3 interleaved rounds (the order alternating); the table gives the
ratio of the medians and the 95 % interval of the per-round ratios.

Everything lives on one scratch XFS on a loop device (benchmarks/loopfs.py). The fio
lines use one job file, given unchanged to `fio` and to `contio-engine fio`; with 2 jobs
the 1 GiB file is split into two disjoint halves (offset_increment), which both tools
read the same way. The sysbench line runs both tools in the directory sysbench prepared.
When the engine has no `fio`/`sysbench` subcommand yet, the peers are still measured
(peer-only rows), so the harness can be checked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.child import run_checked
from benchmarks.context import BenchContext, require_tool
from benchmarks.engine_run import engine_accepts, run_engine
from benchmarks.loopfs import loop_xfs
from benchmarks.parsers import (
    SysbenchRates,
    fio_read_iops,
    fio_read_total_ios,
    parse_sysbench_fileio,
)
from benchmarks.report import (
    Report,
    Row,
    Sample,
    judge_band,
    judge_ratio,
    median_or_none,
    paired_ratio_interval,
)

NAME = "fileio"
TITLE = "File I/O: contio-engine vs fio and sysbench (Debian)"
PEER = "fio/sysbench"

GIB = 1 << 30
DATA_FILE_SIZE = GIB
IMAGE_SIZE = 4 * GIB  # the fio file, sysbench's 1 GB and XFS's own needs
FIO_SECONDS = 10
FIO_RAMP_SECONDS = 2
SYSBENCH_SECONDS = 30
SYSBENCH_OPTIONS = ("--file-total-size=1G", "--file-test-mode=rndrw", "--file-io-mode=sync")
MIN_ROUNDS = 3
FIO_BAND = (0.9, 1.1)
"""contio / fio IOPS: contio runs fio itself, so only its wrapping may cost."""
SYSBENCH_MIN_RATIO = 0.95


@dataclass(frozen=True)
class FioCase:
    """One fio line: a job that both tools run from the same job file."""

    label: str
    numjobs: int
    ioengine: str
    iodepth: int
    direct: bool


FIO_CASES = (
    FioCase("4k randread psync page cache, 1 job", 1, "psync", 1, False),
    FioCase("4k randread psync page cache, 2 jobs", 2, "psync", 1, False),
    FioCase("4k randread io_uring qd32 direct, loop XFS", 1, "io_uring", 32, True),
)


def fio_job_text(case: FioCase, data: Path, seconds: int, ramp: int) -> str:
    """The INI job file of a case (options both fio and contio-engine fio understand)."""
    size = DATA_FILE_SIZE // case.numjobs
    return "\n".join(
        [
            "[global]",
            f"filename={data}",
            "rw=randread",
            "bs=4k",
            f"ioengine={case.ioengine}",
            f"iodepth={case.iodepth}",
            f"direct={int(case.direct)}",
            # fio drops the file's cached pages before a job by default; the page-cache
            # lines must read from the cache, so both tools keep it.
            "invalidate=0",
            # Pure random offsets in both tools (contio keeps no map of blocks read).
            "norandommap=1",
            "randrepeat=0",
            f"size={size}",
            f"offset_increment={size}",
            f"numjobs={case.numjobs}",
            "time_based=1",
            f"runtime={seconds}",
            f"ramp_time={ramp}",
            "group_reporting=1",
            "[randread]",
            "",
        ]
    )


def _write_data_file(path: Path) -> None:
    """Fills the shared file with random bytes, durably, so no tool lays it out itself."""
    chunk = 1 << 20
    with path.open("wb") as handle:
        for _ in range(DATA_FILE_SIZE // chunk):
            handle.write(os.urandom(chunk))
        handle.flush()
        os.fsync(handle.fileno())


def _warm_page_cache(path: Path) -> None:
    with path.open("rb") as handle:
        while handle.read(1 << 20):
            pass


def _fio_peer(ctx: BenchContext, job: Path, case: FioCase) -> Sample:
    child = run_checked([str(require_tool("fio")), "--output-format=json", str(job)])
    return Sample(
        tool="fio",
        case=case.label,
        metric="IOPS",
        value=fio_read_iops(child.stdout),
        unit="IOPS",
        metadata={
            "argv": child.argv,
            "load_before": child.load_before,
            "cpu_seconds": child.cpu_seconds,
            "wall_seconds": child.wall_seconds,
            "max_rss_kib": child.max_rss_kib,
            "ios": fio_read_total_ios(child.stdout),
        },
    )


def _fio_contio(ctx: BenchContext, job: Path, case: FioCase) -> Sample:
    run = run_engine(ctx, ["fio", str(job)])
    return Sample(
        tool="contio",
        case=case.label,
        metric="IOPS",
        value=run.throughput,
        unit="IOPS",
        metadata={
            "argv": run.child.argv,
            "load_before": run.child.load_before,
            "cpu_seconds": run.child.cpu_seconds,
            "wall_seconds": run.child.wall_seconds,
            "max_rss_kib": run.child.max_rss_kib,
            "ios": run.operations,
        },
    )


def _measure_fio(ctx: BenchContext, report: Report, mount: Path, with_contio: bool) -> list[Row]:
    data = mount / "fio-data"
    _write_data_file(data)
    rows = []
    for index, case in enumerate(FIO_CASES):
        if not case.direct:
            _warm_page_cache(data)
        job = mount / f"job{index}.fio"
        job.write_text(fio_job_text(case, data, ctx.scaled(FIO_SECONDS), FIO_RAMP_SECONDS))
        values: dict[str, list[float]] = {}
        per_cpu: dict[str, list[float]] = {}
        for round_number in range(ctx.rounds(MIN_ROUNDS)):
            runners: list[Callable[[BenchContext, Path, FioCase], Sample]] = [_fio_peer]
            if with_contio:
                runners = [_fio_peer, _fio_contio]
                if (index + round_number) % 2:
                    runners.reverse()
            for runner in runners:
                sample = runner(ctx, job, case)
                report.samples.append(sample)
                values.setdefault(sample.tool, []).append(sample.value)
                cpu = max(sample.metadata["cpu_seconds"], 1e-9)
                per_cpu.setdefault(sample.tool, []).append(sample.metadata["ios"] / cpu)
                ctx.progress(f"{case.label}: {sample.tool} {sample.value:,.0f} IOPS")
        contio, fio = median_or_none(values.get("contio")), median_or_none(values.get("fio"))
        low, high = FIO_BAND
        rows.append(
            Row(
                case=case.label,
                metric="IOPS",
                unit="IOPS",
                contio=contio,
                peer=fio,
                goal=f"{low:g} ≤ ratio ≤ {high:g}",
                passed=judge_band(contio, fio, low, high),
                ratio_interval=paired_ratio_interval(values.get("contio"), values.get("fio")),
            )
        )
        # Not a goal: what a busy machine distorts least. fio's jobs are session
        # leaders (setsid), so with sched_autogroup each gets a CPU share of its own
        # while contio's threads share one; under contention IOPS favour fio.
        rows.append(
            Row(
                case=case.label,
                metric="I/Os per CPU-second",
                unit="IOPS",
                contio=median_or_none(per_cpu.get("contio")),
                peer=median_or_none(per_cpu.get("fio")),
                ratio_interval=paired_ratio_interval(per_cpu.get("contio"), per_cpu.get("fio")),
            )
        )
    data.unlink()
    return rows


def _flush(directory: Path) -> None:
    """Writes back the file system's dirty pages, so a run does not pay for the one before."""
    run_checked(["sync", "-f", str(directory)])


def _sysbench_peer(directory: Path, seconds: int) -> SysbenchRates:
    sysbench = str(require_tool("sysbench"))
    child = run_checked(
        [sysbench, "fileio", *SYSBENCH_OPTIONS, f"--time={seconds}", "run"], cwd=directory
    )
    return parse_sysbench_fileio(child.stdout)


def _sysbench_contio(ctx: BenchContext, directory: Path, seconds: int) -> SysbenchRates:
    args = ["sysbench", "fileio", *SYSBENCH_OPTIONS, f"--time={seconds}"]
    document = run_engine(ctx, [*args, f"--file-dir={directory}", "run"]).document
    elapsed = float(document["runtime_ms"]) / 1000
    by_type = document.get("operations_by_type", {})

    def rate(operation: str) -> float:
        return by_type.get(operation, {}).get("count", 0) / elapsed

    return SysbenchRates(rate("READ"), rate("WRITE"), rate("FSYNC"))


def _measure_sysbench(
    ctx: BenchContext, report: Report, mount: Path, with_contio: bool
) -> list[Row]:
    sysbench = str(require_tool("sysbench"))
    directory = mount / "sysbench"
    directory.mkdir()
    seconds = ctx.scaled(SYSBENCH_SECONDS, minimum=2)
    label = f"sysbench fileio rndrw 1G sync, {seconds} s"
    run_checked([sysbench, "fileio", "--file-total-size=1G", "prepare"], cwd=directory)
    measured: dict[str, list[SysbenchRates]] = {}
    for round_number in range(ctx.rounds(MIN_ROUNDS)):
        tools = ["sysbench", "contio"] if with_contio else ["sysbench"]
        if round_number % 2:
            tools.reverse()
        for tool in tools:
            rates = _sysbench_round(ctx, tool, directory, seconds)
            measured.setdefault(tool, []).append(rates)
            _record_sysbench(ctx, report, tool, label, rates)
    run_checked([sysbench, "fileio", "--file-total-size=1G", "cleanup"], cwd=directory)
    return _sysbench_rows(label, measured)


def _sysbench_round(ctx: BenchContext, tool: str, directory: Path, seconds: int) -> SysbenchRates:
    # Without the flush, a run would also write back what prepare or the other tool
    # left dirty.
    _flush(directory)
    if tool == "sysbench":
        return _sysbench_peer(directory, seconds)
    return _sysbench_contio(ctx, directory, seconds)


def _record_sysbench(
    ctx: BenchContext, report: Report, tool: str, label: str, rates: SysbenchRates
) -> None:
    ctx.progress(
        f"sysbench rndrw: {tool} {rates.reads_per_sec:,.0f} reads/s "
        f"{rates.writes_per_sec:,.0f} writes/s {rates.fsyncs_per_sec:,.0f} fsyncs/s"
    )
    for metric, value in (
        ("reads/s", rates.reads_per_sec),
        ("writes/s", rates.writes_per_sec),
        ("fsyncs/s", rates.fsyncs_per_sec),
    ):
        report.samples.append(Sample(tool, label, metric, value, metric))


def _sysbench_rows(label: str, measured: dict[str, list[SysbenchRates]]) -> list[Row]:
    """reads/s and writes/s (judged) and fsyncs/s, each the median over the rounds."""
    rows = []
    for metric, attribute, goal in (
        ("reads/s", "reads_per_sec", SYSBENCH_MIN_RATIO),
        ("writes/s", "writes_per_sec", SYSBENCH_MIN_RATIO),
        ("fsyncs/s", "fsyncs_per_sec", None),
    ):
        contio_rounds = [getattr(r, attribute) for r in measured.get("contio", [])]
        peer_rounds = [getattr(r, attribute) for r in measured["sysbench"]]
        contio, peer = median_or_none(contio_rounds), median_or_none(peer_rounds)
        rows.append(
            Row(
                case=label,
                metric=metric,
                unit=metric,
                contio=contio,
                peer=peer,
                goal="" if goal is None else f"ratio ≥ {goal:g}",
                passed=None if goal is None else judge_ratio(contio, peer, goal),
                ratio_interval=paired_ratio_interval(contio_rounds, peer_rounds),
            )
        )
    return rows


def run(ctx: BenchContext) -> Report:
    """Sets up the loop XFS, runs the fio lines and the sysbench line, tears it down."""
    require_tool("fio")
    require_tool("sysbench")
    report = Report(name=NAME, title=TITLE, peer=PEER)
    has_fio = engine_accepts(ctx, ["fio", "--help"])
    has_sysbench = engine_accepts(ctx, ["sysbench", "--help"])
    for feature, present in (("fio", has_fio), ("sysbench", has_sysbench)):
        if not present:
            report.notes.append(
                f"contio-engine has no `{feature}` subcommand yet: peer-only rows, goals not judged"
            )
    with loop_xfs(ctx.scratch(), IMAGE_SIZE) as mount:
        report.rows += _measure_fio(ctx, report, mount, has_fio)
        report.rows += _measure_sysbench(ctx, report, mount, has_sysbench)
    report.notes.append(
        f"median of {ctx.rounds(MIN_ROUNDS)} rounds per line, order alternating; ratio of the "
        "medians [95 % interval of the per-round ratios]"
    )
    report.notes.append(
        f"fio lines: {ctx.scaled(FIO_SECONDS)} s after a {FIO_RAMP_SECONDS} s ramp, 1 GiB file "
        "on XFS on a loop device (direct I/O to its image file)."
    )
    return report
