"""`contio profile`: an application's I/O profile, alone and beside copies of itself."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from contio.cli.root import cli
from contio.cli.run import PROFILE_HELP, load_spec
from contio.errors import Interrupted, SpecError
from contio.profile.application import DEFAULT_COUNTS, profiling_spec
from contio.profile.distill import distill
from contio.profile.schema import Profile
from contio.run.runner import Runner


def parse_counts(text: str) -> list[int]:
    """`1,2,4` → [1, 2, 4]; `SpecError` naming --containers for anything else."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise SpecError("--containers", f"{text!r} is not a list of counts ≥ 1, e.g. 1,2,4")
    return counts


def profile_table(profile: Profile) -> Table:
    """One line per container count: throughput, scaling, the disk and the CPU."""
    table = Table(title=f"I/O profile of {profile.application.name}", title_justify="left")
    for column in ("containers", "ops/s", "× alone per copy", "read MB/s", "write MB/s",
                   "IOPS", "KiB/IO", "merged %", "disk util %", "queue", "CPU cores"):  # fmt: skip
        table.add_column(column, justify="right")

    def number(value: float | None, scale: float = 1.0, digits: int = 1) -> str:
        return "—" if value is None else f"{value / scale:.{digits}f}"

    for point in profile.scaling:
        ops = f"{point.ops_per_sec:,.0f}"
        if point.ops_per_sec_half_width is not None:
            ops += f" ± {point.ops_per_sec_half_width:,.0f}"
        iops = None
        if point.read_iops is not None or point.write_iops is not None:
            iops = (point.read_iops or 0.0) + (point.write_iops or 0.0)
        table.add_row(
            str(point.containers), ops, f"{point.normalized:.2f}",
            number(point.read_bytes_per_sec, 1e6), number(point.write_bytes_per_sec, 1e6),
            number(iops, digits=0), number(point.bytes_per_io, 1024),
            number(point.merged_percent), number(point.disk_utilization_percent),
            number(point.queue_depth, digits=2), number(point.cpu_cores, digits=2),
        )  # fmt: skip
    return table


@cli.command()
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--profile", "-P", "spec_profile", help=PROFILE_HELP)
@click.option(
    "--containers", default=",".join(map(str, DEFAULT_COUNTS)), show_default=True,
    help="Copies of the application to run at once, comma-separated.",
)  # fmt: skip
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
    help="The profile file to write [default: NAME.profile.json, NAME the spec's].",
)  # fmt: skip
@click.option(
    "--results-dir", type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"), show_default=True,
    help="Where the run's results folder is created (the profile's raw data).",
)  # fmt: skip
def profile(
    spec: Path, spec_profile: str | None, containers: str, output: Path | None, results_dir: Path
) -> None:
    """Measure the I/O profile of the one application SPEC runs.

    Runs it alone and as several copies at once (--containers) on its backend, as
    `contio run` would, and writes what it did to storage as a profile file
    (`contio-profile/1`, JSON): ops/s, read and write bytes/s and IOPS of its disk,
    request size, the share of merged (sequential) requests, disk utilization and
    queue depth, CPU per operation, and its scaling curve with saturation point and
    valley. SPEC's factors must give one application (one level each, except
    `containers`, which --containers sets).
    """
    counts = parse_counts(containers)
    experiment, text = load_spec(spec, spec_profile)
    experiment = profiling_spec(experiment, counts, str(spec))
    output = (output or Path(f"{experiment.name}.profile.json")).resolve()
    results_dir = results_dir.resolve()  # mounted into containers: absolute
    runner = Runner(experiment, text, results_dir, profile=spec_profile)
    console = Console() if Console().is_terminal else Console(width=160)
    try:
        outcome = runner.run()
    except Interrupted as exc:
        if runner.folder is not None:
            click.echo(f"interrupted; completed phases kept in {runner.folder.path}", err=True)
        sys.exit(128 + exc.signum)
    found = distill(outcome.folder.path)
    output.parent.mkdir(parents=True, exist_ok=True)
    found.dump(output)
    console.print(profile_table(found))
    if found.saturation_containers is not None:
        point = found.saturation_containers
        console.print(f"throughput stops growing at {point:g} container{'' if point == 1 else 's'}")
    if found.valley is not None:
        console.print(f"throughput valley: {found.valley.depth:+.0%} from "
                      f"{found.valley.peak_containers} to {found.valley.bottom_containers}")  # fmt: skip
    for caveat in found.caveats:
        console.print(f"caveat: {caveat}", highlight=False, soft_wrap=True)
    console.print(f"profile: {output}", highlight=False, soft_wrap=True)
    console.print(f"results: {outcome.folder.path}", highlight=False, soft_wrap=True)
