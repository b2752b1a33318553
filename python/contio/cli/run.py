"""`contio run`: run an experiment spec (the embedded default when none is given)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from contio.cli.root import cli
from contio.cli.tables import (
    comparison_table,
    findings_table,
    headline,
    mix_table,
    results_table,
)
from contio.errors import ContioError, Interrupted
from contio.experiment.load import read_default_spec, read_spec_file
from contio.experiment.spec import ExperimentSpec
from contio.findings.caveats import RunChecks
from contio.findings.document import write_findings
from contio.results.index import INDEX_FILE, ResultsIndex
from contio.run.runner import Runner, RunOutcome
from contio.stats.backend_comparison import Analysis

F = TypeVar("F", bound=Callable[..., Any])

PROFILE_HELP = "Profile of the spec to run (for example tiny, small, paper)."


def results_dir_option(help_text: str) -> Callable[[F], F]:
    """`--results-dir`: where a command's results folder goes (default `results`, relative
    to where contio runs)."""
    return click.option(
        "--results-dir", type=click.Path(file_okay=False, path_type=Path),
        default=Path("results"), show_default=True, help=help_text,
    )  # fmt: skip


def load_spec(spec: Path | None, profile: str | None) -> tuple[ExperimentSpec, str]:
    """The spec file (or the embedded default) with `profile` merged."""
    return read_spec_file(spec, profile) if spec else read_default_spec(profile)


def stored_profile(folder: Path) -> str | None:
    """The profile a results folder was run with (None when it has no index)."""
    if not (folder / INDEX_FILE).is_file():
        return None
    index = ResultsIndex.open(folder)
    try:
        return index.meta("profile")
    finally:
        index.close()


@cli.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--profile", "-P", help=PROFILE_HELP)
@results_dir_option("Where the experiment's results folder is created.")
@click.option(
    "--resume",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Go on with an interrupted experiment's results folder (completed cells are kept).",
)
def run(spec: Path | None, profile: str | None, results_dir: Path, resume: Path | None) -> None:
    """Run SPEC (YAML), or the embedded default experiment.

    Prints a table of ops/s (mean ± 95% confidence half-width over repetitions)
    and p95/p99 latency per cell, and the path of the results folder. Exit code 1 when
    a cell failed (its reason is in the table; the other cells ran and were kept).
    """
    # Paths are made absolute once, here: the results folder is mounted into containers
    # (Docker refuses relative mount paths) and written from other working directories.
    results_dir = results_dir.resolve()
    if resume is not None:
        resume = resume.resolve()
        if profile is None:
            profile = stored_profile(resume)
    experiment, text = load_spec(spec, profile)
    runner = Runner(experiment, text, results_dir, profile=profile, resume=resume)
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # a pipe or a log file: room for the whole table
    try:
        outcome = runner.run()
    except Interrupted as exc:
        if runner.folder is not None:
            click.echo(
                f"interrupted; {runner.completed_phases} completed phases kept in "
                f"{runner.folder.path} (go on with --resume {runner.folder.path})",
                err=True,
            )
        sys.exit(128 + exc.signum)
    console.print(results_table(outcome.summaries))
    analysis = Analysis(experiment.analysis.t_test, experiment.analysis.baseline)
    comparison = comparison_table(outcome.summaries, analysis)
    if comparison is not None:
        console.print(comparison)
    mixes = mix_table(outcome.summaries)
    if mixes is not None:
        console.print(mixes)
    found = headline(outcome.summaries, analysis, final_checks(outcome.folder.path))
    if found is not None:
        console.print(found, highlight=False, markup=False, soft_wrap=True)
    write_final_findings(outcome.folder.path, console)
    console.print(f"results: {outcome.folder.path}", highlight=False, soft_wrap=True)
    write_final_report(outcome.folder.path)
    failed = [s for s in outcome.summaries if s.status == "failed"]
    if failed:
        click.echo(
            f"{len(failed)} of {len(outcome.summaries)} cells failed (reasons above); "
            f"`contio run --resume {outcome.folder.path}` tries them again",
            err=True,
        )
        sys.exit(1)


def run_to_the_end(runner: Runner) -> RunOutcome:
    """`runner`'s run; on Ctrl-C or SIGTERM, where the completed phases are kept, and exit
    128 + the signal (for commands that run an experiment as one of their steps)."""
    try:
        return runner.run()
    except Interrupted as exc:
        if runner.folder is not None:
            click.echo(f"interrupted; completed phases kept in {runner.folder.path}", err=True)
        sys.exit(128 + exc.signum)


def final_checks(folder: Path) -> RunChecks | None:
    """The run's validity checks for the headline's caveat; None (and a warning) when
    they cannot be had: the headline is printed without one, no result is lost."""
    try:
        return RunChecks.of_folder(folder)
    except (ContioError, ValueError, OSError) as exc:
        click.echo(f"warning: no validity checks for the headline ({exc})", err=True)
        return None


def write_final_findings(folder: Path, console: Console) -> None:
    """findings.json and the verdicts at the end of a run; a failure loses no result."""
    try:
        verdicts = write_findings(folder)
    except (ContioError, ValueError, OSError) as exc:
        click.echo(f"warning: no findings.json written ({exc}); `contio results {folder}` "
                   "tries again", err=True)  # fmt: skip
        return
    table = findings_table(verdicts)
    if table is not None:
        console.print(table)


def write_final_report(folder: Path) -> None:
    """The HTML report at the end of a run; a report that fails loses no result, so warn."""
    from contio.report.assemble import write_report  # lazy: matplotlib slows every start

    try:
        path = write_report(folder)
    except (ContioError, ValueError, OSError) as exc:
        click.echo(f"warning: no report written ({exc}); try `contio report {folder}`", err=True)
        return
    click.echo(f"report: {path}")
