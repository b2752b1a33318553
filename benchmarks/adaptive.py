"""The adaptive stopping rule against the fixed method, through `contio run` itself.

Issue 6 asks for the wall time to reach a ±2% confidence interval (95%, Student t) of
ops/s for workload A on an embedded engine with the adaptive rule, against the fixed
method of paper 000 (100,000 operations per repetition, 5 repetitions), side by side
in one run, with the interval width each reached. Goal: adaptive ≤ 1/3 of the fixed
method's time. Both run the same cell through `contio.runner.Runner` (loads included:
workload A writes, so each repetition starts from a fresh load). The target is `lsm`
when `contio-engine targets` lists it, else `null` (the embedded engines land from
another change); the notes say which.
"""

from __future__ import annotations

import io
import re
import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console

from benchmarks.context import BenchContext
from benchmarks.engine_run import engine_targets
from benchmarks.report import Report, Row, Sample

NAME = "adaptive"
TITLE = "Adaptive stopping rule vs fixed 5 × 100,000 operations: time to ±2% CI (workload A)"
PEER = "fixed"

FIXED_OPERATIONS = 100_000
FIXED_REPETITIONS = 5
ADAPTIVE_OPERATIONS = 20_000
"""Per adaptive repetition: a fifth of the fixed size, so 3 repetitions cost 3/25 of it."""
CI_TARGET = 0.02
GOAL_RATIO = 3.0
RECORDS = {"lsm": 10_000, "null": 1_000}
THREADS = 1


def _target(ctx: BenchContext) -> str:
    listing = engine_targets(ctx)
    return "lsm" if re.search(r"(?m)^\W*lsm\b", listing) else "null"


def _spec_text(target: str, stop: str, records: int, data: Path) -> str:
    return (
        f"name: bench-{target}\n"
        f"backend: {{type: local-dir, path: {data}}}\n"
        f"factors: {{target: [{target}], workload: [workloada], threads: [{THREADS}]}}\n"
        f"stop: {stop}\n"
        f"properties: {{recordcount: {records}}}\n"
    )


def _measure(ctx: BenchContext, text: str, scratch: Path) -> tuple[float, float, int]:
    """Runs one spec; returns wall seconds, relative CI half-width reached, repetitions."""
    from contio.progress import RunProgress
    from contio.runner import Runner
    from contio.spec import parse_spec_text

    spec = parse_spec_text(text, "bench", scratch)
    quiet = Console(file=io.StringIO())
    runner = Runner(
        spec, text, scratch / "results", progress=lambda c, s: RunProgress(c, s, console=quiet)
    )
    started = time.perf_counter()
    outcome = runner.run()
    wall = time.perf_counter() - started
    [summary] = outcome.summaries
    return wall, summary.throughput.relative_half_width, summary.repetitions


def run(ctx: BenchContext) -> Report:
    """Runs the fixed method, then the adaptive rule, on the same cell."""
    target = _target(ctx)
    records = ctx.scaled(RECORDS[target], minimum=100)
    fixed_ops = ctx.scaled(FIXED_OPERATIONS, minimum=1000)
    adaptive_ops = ctx.scaled(ADAPTIVE_OPERATIONS, minimum=200)
    report = Report(name=NAME, title=TITLE, peer=PEER)
    scratch = Path(tempfile.mkdtemp(prefix="adaptive-", dir=ctx.scratch()))
    try:
        (scratch / "data").mkdir()
        stops = {
            "fixed": f"{{rule: fixed-ops, operations: {fixed_ops}, repetitions: {FIXED_REPETITIONS}}}",
            "adaptive": (
                f"{{rule: adaptive, operations: {adaptive_ops}, ci_target: {CI_TARGET}, "
                "min_repetitions: 3, max_repetitions: 30}"
            ),
        }
        measured = {}
        for method, stop in stops.items():
            text = _spec_text(target, stop, records, scratch / "data")
            wall, width, reps = _measure(ctx, text, scratch / method)
            measured[method] = (wall, width, reps)
            ctx.progress(f"{method}: {wall:.1f} s, ±{100 * width:.2f}% after {reps} repetitions")
            report.samples.append(
                Sample(
                    tool="contio" if method == "adaptive" else "fixed",
                    case=f"{target} workloada threads={THREADS}",
                    metric="wall_seconds",
                    value=wall,
                    unit="s",
                    metadata={"ci_relative_half_width": width, "repetitions": reps, "stop": stop},
                )
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (a_wall, a_width, a_reps), (f_wall, f_width, f_reps) = measured["adaptive"], measured["fixed"]
    case = f"{target} workloada threads={THREADS}"
    reached = a_width <= CI_TARGET
    report.rows += [
        Row(
            case=case,
            metric="speed (1 / wall time)",
            unit="1/s",
            contio=1 / a_wall,
            peer=1 / f_wall,
            goal=f"ratio ≥ {GOAL_RATIO:g} and adaptive CI ≤ ±{100 * CI_TARGET:g}%",
            passed=(f_wall / a_wall >= GOAL_RATIO) and reached,
        ),
        Row(case=case, metric="wall time", unit="s", contio=a_wall, peer=f_wall),
        Row(
            case=case,
            metric="CI half-width reached",
            unit="%",
            contio=100 * a_width,
            peer=100 * f_width,
        ),
        Row(case=case, metric="repetitions", unit="", contio=a_reps, peer=f_reps),
    ]
    what = (
        "the embedded LSM engine"
        if target == "lsm"
        else "lsm is not in this engine yet: the null target stands in"
    )
    report.notes.append(
        f"target {target} ({what}), "
        f"recordcount={records}, workload A, {THREADS} thread, a fresh load before every "
        f"repetition (workload A writes). Fixed: {FIXED_REPETITIONS} × {fixed_ops:,} operations; "
        f"adaptive: {adaptive_ops:,} operations per repetition until ±{100 * CI_TARGET:g}% "
        "(3–30 repetitions). The fixed method reaches whatever width its 5 repetitions give."
    )
    return report
