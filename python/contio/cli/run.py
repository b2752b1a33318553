"""`contio run`: run an experiment spec (the embedded default when none is given)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console

from contio.cli import cli
from contio.errors import Interrupted
from contio.runner import Runner
from contio.spec import read_default_spec, read_spec_file
from contio.tables import results_table


@cli.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--results-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Where the experiment's results folder is created.",
)
def run(spec: Path | None, results_dir: Path) -> None:
    """Run SPEC (YAML), or the embedded default experiment.

    Prints a table of ops/s (mean ± 95% confidence half-width over repetitions)
    and p95/p99 latency per target, workload and thread level, and the path of
    the results folder.
    """
    experiment, text = read_spec_file(spec) if spec else read_default_spec()
    runner = Runner(experiment, text, results_dir)
    console = Console()
    if not console.is_terminal:
        console = Console(width=120)  # a pipe or a log file: room for the whole table
    try:
        outcome = runner.run()
    except Interrupted as exc:
        if runner.folder is not None:
            click.echo(
                f"interrupted; {len(runner.records)} completed phases kept in {runner.folder.path}",
                err=True,
            )
        sys.exit(128 + exc.signum)
    console.print(results_table(outcome.summaries))
    console.print(f"results: {outcome.folder.path}", highlight=False, soft_wrap=True)
