"""contio-engine (`null` target) against YCSB 0.17.0 `BasicDB`: the load generator itself.

Issue 2's goals: with latency recording on in both, contio ≥ 2× YCSB's ops/s at 1
thread and ≥ 3× at 2 threads and more; contio at 100 threads no more than 10% below
its own best; engine peak RSS ≤ 64 MB at 100 threads. Both tools run workload A with
the same record count and at least 20 M operations (so JVM warm-up does not decide the
ratio), thread count by thread count, alternating which goes first so a slow drift of
the shared machine does not favour one side. Peak RSS is each child's maximum
resident set size as GNU time reports it (see benchmarks/child.py for why not wait4).
"""

from __future__ import annotations

from benchmarks.child import run_child
from benchmarks.context import BenchContext, workload_file
from benchmarks.engine_run import EngineRun, run_engine
from benchmarks.errors import SetupError
from benchmarks.parsers import parse_ycsb_summary, ycsb_throughput
from benchmarks.report import Report, Row, Sample, judge_ratio
from benchmarks.ycsb_peer import YCSB_VERSION, ycsb_run_argv

NAME = "ycsb_null"
TITLE = f"YCSB workload A, contio-engine null vs YCSB {YCSB_VERSION} BasicDB"
PEER = "YCSB"

THREADS = (1, 2, 8, 32, 100)
OPERATIONS = 20_000_000
RECORDS = 1000  # workloada's own recordcount; the null target never touches the keys' data
RATIO_AT_ONE = 2.0
RATIO_AT_MORE = 3.0
SCALING_FLOOR = 0.9
RSS_LIMIT_MB = 64.0
TIMEOUT_SECONDS = 900.0


def _mb(kib: int) -> float:
    """KiB (ru_maxrss) to MB (10^6 bytes), the unit of the issue's goal."""
    return kib * 1024 / 1e6


def _run_ycsb(ctx: BenchContext, threads: int, ops: int) -> Sample:
    properties = {
        "recordcount": str(RECORDS),
        "operationcount": str(ops),
        "basicdb.verbose": "false",
        # YCSB's default, said explicitly: latency recording stays on, as in contio.
        "measurementtype": "hdrhistogram",
    }
    argv = ycsb_run_argv(workload_file("workloada"), properties, threads)
    child = run_child(argv, timeout=TIMEOUT_SECONDS)
    if child.returncode != 0:
        raise SetupError(f"YCSB exited with code {child.returncode}:\n{child.tail()}")
    summary = parse_ycsb_summary(child.stdout)
    done = summary.get(("READ", "Operations"), 0) + summary.get(("UPDATE", "Operations"), 0)
    if int(done) != ops:
        raise SetupError(f"YCSB completed {done:.0f} operations of {ops}")
    return Sample(
        tool="ycsb",
        case=f"threads={threads}",
        metric="ops/s",
        value=ycsb_throughput(child.stdout),
        unit="ops/s",
        metadata={
            "argv": argv,
            "wall_seconds": child.wall_seconds,
            "cpu_seconds": child.cpu_seconds,
            "max_rss_kib": child.max_rss_kib,
            "load_before": child.load_before,
            "operations": ops,
            "read_p99_us": summary.get(("READ", "99thPercentileLatency(us)")),
        },
    )


def _run_contio(ctx: BenchContext, threads: int, ops: int) -> Sample:
    args = [
        "run",
        "null",
        "-P",
        str(workload_file("workloada")),
        "-p",
        f"recordcount={RECORDS}",
        "-p",
        f"operationcount={ops}",
        "-threads",
        str(threads),
    ]
    run: EngineRun = run_engine(ctx, args, timeout=TIMEOUT_SECONDS)
    if run.operations != ops:
        raise SetupError(f"contio-engine completed {run.operations} operations of {ops}")
    read = run.document.get("operations_by_type", {}).get("READ", {})
    return Sample(
        tool="contio",
        case=f"threads={threads}",
        metric="ops/s",
        value=run.throughput,
        unit="ops/s",
        metadata={
            "argv": run.child.argv,
            "wall_seconds": run.child.wall_seconds,
            "cpu_seconds": run.child.cpu_seconds,
            "max_rss_kib": run.child.max_rss_kib,
            "load_before": run.child.load_before,
            "operations": ops,
            "read_p99_us": read.get("latency_us", {}).get("p99"),
        },
    )


def _describe(ctx: BenchContext, sample: Sample) -> None:
    meta = sample.metadata
    ctx.progress(
        f"{sample.case:11} {sample.tool:6} {sample.value / 1e6:6.2f} M ops/s  "
        f"wall {meta['wall_seconds']:5.1f} s  cpu {meta['cpu_seconds']:5.1f} s  rss {_mb(meta['max_rss_kib']):6.1f} MB  "
        f"load {meta['load_before']:.1f}"
    )


def _rows(contio: dict[int, Sample], ycsb: dict[int, Sample]) -> list[Row]:
    rows = []
    for threads in THREADS:
        minimum = RATIO_AT_ONE if threads == 1 else RATIO_AT_MORE
        ours, theirs = contio[threads].value, ycsb[threads].value
        rows.append(
            Row(
                case=f"threads={threads}",
                metric="ops/s",
                unit="ops/s",
                contio=ours,
                peer=theirs,
                goal=f"ratio ≥ {minimum:g}",
                passed=judge_ratio(ours, theirs, minimum),
            )
        )
    # Not a goal: operations per CPU-second of the whole process (JIT and GC threads
    # included for YCSB) is what a busy shared machine distorts least.
    for threads in THREADS:
        ours, theirs = contio[threads], ycsb[threads]
        rows.append(
            Row(
                case=f"threads={threads}",
                metric="ops per CPU-second",
                unit="ops/s",
                contio=ours.metadata["operations"] / ours.metadata["cpu_seconds"],
                peer=theirs.metadata["operations"] / theirs.metadata["cpu_seconds"],
            )
        )
    most = THREADS[-1]
    best = max(sample.value for sample in contio.values())
    share = contio[most].value / best
    rows.append(
        Row(
            case=f"threads={most}",
            metric="ops/s ÷ contio's best",
            unit="×",
            contio=share,
            goal=f"≥ {SCALING_FLOOR:g}",
            passed=share >= SCALING_FLOOR,
        )
    )
    rss = _mb(contio[most].metadata["max_rss_kib"])
    rows.append(
        Row(
            case=f"threads={most}",
            metric="peak RSS (MB)",
            unit="MB",
            contio=rss,
            peer=_mb(ycsb[most].metadata["max_rss_kib"]),
            goal=f"contio ≤ {RSS_LIMIT_MB:g} MB",
            passed=rss <= RSS_LIMIT_MB,
        )
    )
    return rows


def _probe_contio(ctx: BenchContext) -> str | None:
    """None when the engine runs a tiny workload A on null; else why not."""
    try:
        _run_contio(ctx, 1, 1000)
    except SetupError as exc:
        return str(exc)
    return None


def _measure(ctx: BenchContext, report: Report, with_contio: bool, ops: int) -> None:
    """Both tools at every thread count, alternating which goes first; ctx.repeat rounds."""
    for round_number in range(ctx.repeat):
        for index, threads in enumerate(THREADS):
            order = [_run_ycsb, _run_contio] if with_contio else [_run_ycsb]
            if (index + round_number) % 2:
                order.reverse()
            for measure in order:
                sample = measure(ctx, threads, ops)
                sample.metadata["round"] = round_number
                report.samples.append(sample)
                _describe(ctx, sample)


def _median_samples(samples: list[Sample], tool: str) -> dict[int, Sample]:
    """Per thread count, the sample with the median ops/s over the rounds (lower median)."""
    by_threads: dict[int, list[Sample]] = {}
    for sample in samples:
        if sample.tool == tool:
            by_threads.setdefault(int(sample.case.split("=")[1]), []).append(sample)
    chosen = {}
    for threads, group in by_threads.items():
        ordered = sorted(group, key=lambda s: s.value)
        chosen[threads] = ordered[(len(ordered) - 1) // 2]
    return chosen


def _partial_rows(samples: list[Sample]) -> list[Row]:
    """Rows of whatever was measured, unjudged: for a run cut short by a broken set-up."""
    by = {(s.tool, s.case): s.value for s in samples}
    return [
        Row(
            case=f"threads={t}",
            metric="ops/s",
            unit="ops/s",
            contio=by.get(("contio", f"threads={t}")),
            peer=by.get(("ycsb", f"threads={t}")),
        )
        for t in THREADS
        if ("contio", f"threads={t}") in by or ("ycsb", f"threads={t}") in by
    ]


def run(ctx: BenchContext) -> Report:
    """Measures both tools at every thread count, interleaved, and judges the goals.

    When the engine cannot run yet, YCSB is still measured (peer-only rows) so the
    harness can be checked, and the report says the set-up is broken.
    """
    ops = ctx.scaled(OPERATIONS, minimum=1000)
    report = Report(name=NAME, title=TITLE, peer=PEER)
    report.notes.append(
        f"workload A, recordcount={RECORDS}, operationcount={ops}; ops/s as each tool reports "
        "over its own run phase; peak RSS from GNU time (%M) around each child."
    )
    engine_problem = _probe_contio(ctx)
    try:
        _measure(ctx, report, engine_problem is None, ops)
    except SetupError as exc:
        report.broken = str(exc)
    if engine_problem is not None:
        report.broken = f"contio-engine cannot run workload A on null yet: {engine_problem}"
    if report.broken:
        report.rows = _partial_rows(report.samples)
        return report
    contio = _median_samples(report.samples, "contio")
    ycsb = _median_samples(report.samples, "ycsb")
    report.rows = _rows(contio, ycsb)
    best = max(sample.value for sample in ycsb.values())
    if ctx.repeat > 1:
        report.notes.append(f"median of {ctx.repeat} interleaved rounds per cell")
    per_cpu = {t: s.metadata["operations"] / s.metadata["cpu_seconds"] for t, s in contio.items()}
    report.notes.append(
        f"contio at {THREADS[-1]} threads in ops per CPU-second: "
        f"{per_cpu[THREADS[-1]] / max(per_cpu.values()):.2f}× its best (what the scaling "
        "goal looks like with the machine's load taken out)"
    )
    report.notes.append(
        f"YCSB at {THREADS[-1]} threads: {ycsb[THREADS[-1]].value / best:.2f}× its own best."
    )
    return report
