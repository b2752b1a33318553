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
        "--results-dir", type=NamedFolder(file_okay=False, path_type=Path),
        default=Path("results"), show_default=True, help=help_text,
    )  # fmt: skip


class NamedFolder(click.Path):
    """A folder option that refuses an empty name: `Path('')` is the working folder, and
    `contio run --results-dir ''` put its results folder there."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail(f"{value!r} names no folder; give one (default: results)", param, ctx)
        return super().convert(value, param, ctx)


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
    try:
        _show_outcome(experiment, outcome, console)
    except KeyboardInterrupt:
        # Everything measured is in the folder; only the report and findings are missing.
        click.echo(
            f"interrupted while writing the report; the results are complete in "
            f"{outcome.folder.path} (`contio report {outcome.folder.path}` writes it)",
            err=True,
        )
        sys.exit(130)
    if outcome.interrupted is not None:
        click.echo(
            f"interrupted by signal {outcome.interrupted} during the teardown, after every "
            f"cell had ended: the teardown finished and the results and report are complete "
            f"in {outcome.folder.path}",
            err=True,
        )
        sys.exit(128 + outcome.interrupted)
    failed = [s for s in outcome.summaries if s.status == "failed"]
    if failed:
        click.echo(
            f"{len(failed)} of {len(outcome.summaries)} cells failed (reasons above); "
            f"`contio run --resume {outcome.folder.path}` tries them again",
            err=True,
        )
        sys.exit(1)


def _show_outcome(experiment: ExperimentSpec, outcome: RunOutcome, console: Console) -> None:
    """The tables, the headline and findings, the folder and its report."""
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
    warn_unapplied_warmup(experiment, outcome.folder.path)
    console.print(f"results: {outcome.folder.path}", highlight=False, soft_wrap=True)
    write_final_report(outcome.folder.path)


def warn_unapplied_warmup(experiment: ExperimentSpec, folder: Path) -> None:
    """Say when run phases were too short for the warm-up to be left out of them (a
    phase bounded by operations, whose length `contio plan` cannot know)."""
    if int(experiment.warmup_seconds) <= 0:
        return
    index = ResultsIndex.open(folder)
    try:
        runs = [p for p in index.phases("run") if p["status"] == "ok"]
    finally:
        index.close()
    whole = [p for p in runs if not p["warmup_excluded_s"]]
    if whole:
        click.echo(
            f"warning: {len(whole)} of {len(runs)} run phases lasted less than warmup_seconds "
            f"({experiment.warmup_seconds:g}) + 1 s: they are counted whole, warm-up included "
            "(warmup_excluded_s 0 in repetitions.csv); raise operationcount or lower "
            "warmup_seconds",
            err=True,
        )


def run_to_the_end(runner: Runner) -> RunOutcome:
    """`runner`'s run; on Ctrl-C or SIGTERM, where the completed phases are kept, and exit
    128 + the signal (for commands that run an experiment as one of their steps)."""
    try:
        outcome = runner.run()
    except Interrupted as exc:
        if runner.folder is not None:
            click.echo(f"interrupted; completed phases kept in {runner.folder.path}", err=True)
        sys.exit(128 + exc.signum)
    if outcome.interrupted is not None:
        click.echo(
            f"interrupted during the teardown; the run's results are complete in "
            f"{outcome.folder.path}",
            err=True,
        )
        sys.exit(128 + outcome.interrupted)
    return outcome


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
