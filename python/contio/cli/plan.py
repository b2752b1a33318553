"""`contio plan`: print an experiment's cells, what it provisions and how long it should
take; provisions nothing.

It refuses what `contio run` refuses before anything is made: the spec's own checks,
and the engine's check of every (target, workload, properties) — a misspelt property,
a fio workload under an operation-count stop rule — which loads one record (one block)
into a scratch directory that is removed at once (`contio.run.phase_calls.check_with_engine`),
and a `--results-dir` that could not hold a results folder. Only what needs the
machine at run time (root for `drop_caches`) is left to `contio run`.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from contio.cli.root import cli
from contio.cli.run import PROFILE_HELP, NamedFolder, load_spec
from contio.experiment.matrix import expand
from contio.results.results_root import check_results_root
from contio.run.docker_preparation import plan_docker
from contio.run.identity import spec_fingerprint
from contio.run.measured_prices import measured_phases
from contio.run.phase_calls import check_with_engine
from contio.run.plan import Plan


@cli.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--profile", "-P", help=PROFILE_HELP)
@click.option(
    "--results-dir", type=NamedFolder(file_okay=False, path_type=Path), default=Path("results"),
    show_default=True,
    help="Where earlier runs of this experiment are: their measured phase times price the "
    "plan (cells never measured keep the assumed rates).",
)  # fmt: skip
def plan(spec: Path | None, profile: str | None, results_dir: Path) -> None:
    """Show what `contio run SPEC` would do, without doing any of it.

    Refuses (exit 2) what `contio run` would refuse before provisioning anything.
    """
    experiment, _ = load_spec(spec, profile)
    check_results_root(results_dir)  # where `contio run` would make its folder
    cells = expand(experiment, str(spec or "default spec"))
    docker = plan_docker(experiment, cells)  # exit code 2 when docker cells cannot run here
    check_with_engine(experiment, cells)  # what `contio run` refuses, plan refuses too
    console = Console() if Console().is_terminal else Console(width=160)
    measured = measured_phases(results_dir, spec_fingerprint(experiment))
    console.print(Plan(experiment, cells, profile, docker, measured).render(), highlight=False)
