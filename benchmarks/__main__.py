"""`python -m benchmarks [NAME...]`: run contio's benchmarks against their peers.

Exit code 0 when every judged goal is met, 1 when one is missed, 2 when the set-up is
broken (a peer or the engine missing, a child failing, an unknown benchmark name).
Each benchmark's measurements are written to JSON as soon as it ends, so an
interrupted run keeps the benchmarks that finished.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import ModuleType

from rich.console import Console

from benchmarks import (
    adaptive,
    backends,
    containers,
    embedded,
    fileio,
    go_tpc,
    go_ycsb,
    middleware,
    placement,
    ycsb_null,
)
from benchmarks.context import BenchContext, cache_dir
from benchmarks.errors import BenchmarkSkipped, SetupError
from benchmarks.report import Report
from benchmarks.results import write_report
from benchmarks.table import print_report

# Each module has NAME, TITLE, PEER and run(ctx) -> Report; they run in this order.
REGISTRY: dict[str, ModuleType] = {
    m.NAME: m
    for m in (
        ycsb_null,
        embedded,
        fileio,
        backends,
        adaptive,
        containers,
        go_ycsb,
        go_tpc,
        middleware,
        placement,
    )
}
QUICK_SCALE = 0.05


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="Run contio's benchmarks against their peers."
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"of {', '.join(REGISTRY)}")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument(
        "--results",
        type=Path,
        default=cache_dir() / "bench",
        help="directory for the JSON results (default: %(default)s)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"run at {QUICK_SCALE:g}× the sizes (a smoke test; goals are not valid there)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds per measurement, median reported (ycsb_null, fileio, backends; go_ycsb "
        "and go_tpc run at least 3; default: %(default)s)",
    )
    parser.add_argument("--engine", type=Path, help="the contio-engine binary (default: search)")
    return parser.parse_args(argv)


def _find_engine(explicit: Path | None) -> Path:
    if explicit is not None:
        if not explicit.is_file():
            raise SetupError(f"--engine: {explicit} is not a file")
        return explicit.resolve()
    try:
        from contio.engine.invocation import find_engine
        from contio.errors import EngineNotFoundError
    except ImportError as exc:
        raise SetupError(f"the contio package is not importable ({exc}); run `make bench`") from exc
    try:
        return find_engine()
    except EngineNotFoundError as exc:
        raise SetupError(str(exc)) from exc


def _run_one(module: ModuleType, ctx: BenchContext) -> Report:
    try:
        return module.run(ctx)
    except BenchmarkSkipped as skip:
        return Report(name=module.NAME, title=module.TITLE, peer=module.PEER, skipped=str(skip))
    except SetupError as exc:
        return Report(name=module.NAME, title=module.TITLE, peer=module.PEER, broken=str(exc))


def exit_code(reports: list[Report]) -> int:
    """2 if any set-up broke, else 1 if any goal was missed, else 0 (skips are not failures)."""
    if any(report.broken for report in reports):
        return 2
    return 1 if any(report.missed for report in reports) else 0


def main(argv: list[str] | None = None) -> int:
    """Runs the chosen benchmarks and returns the exit code."""
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    # Wide enough for the tables and notes when the output goes to a file or a pipe.
    width = None if sys.stdout.isatty() else 120
    out = Console(width=width)
    err = Console(stderr=True, width=width)
    if args.list:
        for name, module in REGISTRY.items():
            out.print(f"{name:12} {module.TITLE}", highlight=False)
        return 0
    unknown = [name for name in args.names if name not in REGISTRY]
    if unknown:
        err.print(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(REGISTRY)}")
        return 2
    try:
        engine = _find_engine(args.engine)
    except SetupError as exc:
        err.print(f"[bold red]set-up broken:[/bold red] {exc}", highlight=False)
        return 2
    if args.repeat < 1:
        err.print(f"--repeat must be at least 1, got {args.repeat}")
        return 2
    scale = QUICK_SCALE if args.quick else 1.0
    ctx = BenchContext(engine=engine, scale=scale, console=err, repeat=args.repeat)
    reports: list[Report] = []
    try:
        _run_all(args, ctx, reports, out, err)
    except KeyboardInterrupt:
        # The running child was killed and reaped by run_child; the benchmarks that
        # finished before are already written.
        err.print(f"interrupted; finished benchmarks are saved in {args.results}")
        return 130
    return exit_code(reports)


def _run_all(
    args: argparse.Namespace,
    ctx: BenchContext,
    reports: list[Report],
    out: Console,
    err: Console,
) -> None:
    """Runs the chosen benchmarks in order, writing and printing each as it ends."""
    for name in args.names or list(REGISTRY):
        err.print(f"[bold]== {name}[/bold]")
        report = _run_one(REGISTRY[name], ctx)
        if ctx.quick:
            report.notes.append(
                f"--quick: sizes at {ctx.scale:g}×; PASS/MISS is not meaningful here"
            )
        extra = {"engine": str(ctx.engine), "scale": ctx.scale, "repeat": ctx.repeat}
        path = write_report(report, args.results, extra)
        print_report(report, out)
        out.print(f"  results: {path}", highlight=False)
        reports.append(report)


if __name__ == "__main__":
    sys.exit(main())
