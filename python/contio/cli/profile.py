"""`contio profile`: an application's I/O profile, alone and beside copies of itself;
`contio profile --pairs`: the interference model calibrated on pairs of profiles."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from contio.cli.root import cli
from contio.cli.run import (
    PROFILE_HELP,
    load_spec,
    results_dir_option,
    run_to_the_end,
    write_final_report,
)
from contio.errors import ContioError, SpecError, UsageError
from contio.output_files import check_output
from contio.profile.application import DEFAULT_COUNTS, profiling_spec
from contio.profile.calibration import (
    Calibration,
    Observation,
    ProfileUsed,
    calibration_document,
    fit,
    pairs_of,
    pairs_spec,
    shared_backend,
)
from contio.profile.distill import distill
from contio.profile.schema import Profile, load_profile
from contio.profile.together import measured_rates, member_names, outcomes, together
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
                   "IOPS", "KiB/IO", "merged %", "seq %", "disk util %", "queue", "CPU cores",
                   "data MiB/copy"):  # fmt: skip
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
            number(point.merged_percent), number(point.sequential_percent),
            number(point.disk_utilization_percent),
            number(point.queue_depth, digits=2), number(point.cpu_cores, digits=2),
            number(point.data_bytes, 1024**2, digits=0),
        )  # fmt: skip
    return table


@cli.command()
@click.argument("spec", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--pairs", is_flag=True,
    help="SPEC… are two or more profile files: run every pair of them together on their "
    "device (and each alone) and calibrate the interference model on what they measure.",
)  # fmt: skip
@click.option("--profile", "-P", "spec_profile", help=PROFILE_HELP)
@click.option(
    "--containers", default=None,
    help="Copies of the application to run at once, comma-separated "
    f"[default: {','.join(map(str, DEFAULT_COUNTS))}].",
)  # fmt: skip
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
    help="The profile file to write [default: NAME.profile.json, NAME the spec's; with "
    "--pairs: calibration.json].",
)  # fmt: skip
@results_dir_option("Where the run's results folder is created (the profile's raw data).")
def profile(
    spec: tuple[Path, ...], pairs: bool, spec_profile: str | None, containers: str | None,
    output: Path | None, results_dir: Path,
) -> None:  # fmt: skip
    """Measure the I/O profile of the one application SPEC runs.

    Runs it alone and as several copies at once (--containers) on its backend, as
    `contio run` would, and writes what it did to storage as a profile file
    (`contio-profile/1`, JSON): ops/s, read and write bytes/s and IOPS of its disk,
    request size, the share of merged (sequential) requests, disk utilization and
    queue depth, CPU per operation, and its scaling curve with saturation point and
    valley. SPEC's factors must give one application (one level each, except
    `containers`, which --containers sets).

    With --pairs, SPEC… are profile files instead: every pair runs together on the
    device they were profiled on, and the interference model's constants are fitted on
    the measured pairs (`contio-calibration/1`, for `contio advise --calibration`).
    """
    if pairs:
        if spec_profile is not None or containers is not None:
            option = "--profile" if spec_profile is not None else "--containers"
            raise UsageError(f"{option}: not with --pairs (the profiles' own specs run)")
        _pairs(list(spec), output, results_dir)
        return
    if len(spec) != 1:
        raise UsageError(
            f"SPEC: one spec to profile, not {len(spec)} (profile files to run in pairs "
            "need --pairs)"
        )
    spec_path = spec[0]
    counts = parse_counts(containers or ",".join(map(str, DEFAULT_COUNTS)))
    experiment, text = load_spec(spec_path, spec_profile)
    experiment = profiling_spec(experiment, counts, str(spec_path))
    output = (output or Path(f"{experiment.name}.profile.json")).resolve()
    check_output(output, make_parent=True)  # before the run, not after it
    results_dir = results_dir.resolve()  # mounted into containers: absolute
    runner = Runner(experiment, text, results_dir, profile=spec_profile, trace_requests=True)
    console = Console() if Console().is_terminal else Console(width=160)
    outcome = run_to_the_end(runner)
    found = distill(outcome.folder.path)
    found.dump(output)
    console.print(profile_table(found))
    if found.saturation_containers is not None:
        point = found.saturation_containers
        console.print(f"throughput stops growing at {point:g} container{'' if point == 1 else 's'}")
    if found.valley is not None:
        console.print(f"throughput valley: {found.valley.depth:+.0%} from "
                      f"{found.valley.peak_containers} to {found.valley.bottom_containers}")  # fmt: skip
    if found.solo.request_sizes:
        total = sum(found.solo.request_sizes.values())
        shares = ", ".join(f"{size} {count / total:.0%}" for size, count in
                           found.solo.request_sizes.items() if count / total >= 0.005)  # fmt: skip
        console.print(f"request sizes alone: {shares} of {total:,} requests", highlight=False)
    for caveat in found.caveats:
        console.print(f"caveat: {caveat}", highlight=False, soft_wrap=True)
    console.print(f"profile: {output}", highlight=False, soft_wrap=True)
    console.print(f"results: {outcome.folder.path}", highlight=False, soft_wrap=True)
    write_final_report(outcome.folder.path)


def _pairs(paths: list[Path], output: Path | None, results_dir: Path) -> None:
    """`--pairs`: every pair on the one device, the fit, the calibration file."""
    if len(paths) < 2:
        raise UsageError(f"--pairs: needs two or more profiles, not {len(paths)}")
    resolved = [p.resolve() for p in paths]
    twice = sorted({str(p) for p in paths if resolved.count(p.resolve()) > 1})
    if twice:
        raise UsageError(f"--pairs: {', '.join(twice)} given twice: each application runs once")
    names = member_names(paths)
    profiles = {n: load_profile(p) for n, p in zip(names, paths, strict=True)}
    for name, path in zip(names, paths, strict=True):
        if profiles[name].application.spec is None:
            raise UsageError(
                f"--pairs: {path}: this profile keeps no spec (written by an older contio): "
                "profile the application again to run it in pairs"
            )
    backend = shared_backend(profiles)
    found_pairs = pairs_of(profiles)
    spec, text = together(pairs_spec("profile-pairs", found_pairs, backend))
    output = (output or Path("calibration.json")).resolve()
    check_output(output, make_parent=True)
    runner = Runner(spec, text, results_dir.resolve())
    outcome = run_to_the_end(runner)
    folder = outcome.folder.path
    rates = measured_rates(folder)
    measured = {p.label: outcomes(p.setting, list(p.names), rates) for p in found_pairs}
    observations = [
        Observation(pair, k, o.normalized, o.half_width)
        for pair in found_pairs
        for k, o in enumerate(measured[pair.label])
        if o.normalized is not None
    ]
    if not observations:
        raise ContioError(f"--pairs: no pair member completed, nothing to calibrate on: {folder}")
    cores = float(os.cpu_count() or 1)
    fitted = fit(observations, cores)
    used = [
        ProfileUsed(name=n, path=str(p.resolve()), application=profiles[n].application.name,
                    measured=profiles[n].measured, results=profiles[n].results)
        for n, p in zip(names, paths, strict=True)
    ]  # fmt: skip
    created = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    calibration = calibration_document(
        fitted, found_pairs, measured, cores, backend, folder, used, created
    )
    calibration.dump(output)
    console = Console() if Console().is_terminal else Console(width=160)
    console.print(calibration_table(calibration))
    for line in calibration_summary(calibration):
        console.print(line, highlight=False, soft_wrap=True)
    console.print(f"calibration: {output}", highlight=False, soft_wrap=True)
    console.print(f"results: {folder}", highlight=False, soft_wrap=True)
    write_final_report(folder)


def calibration_table(calibration: Calibration) -> Table:
    """Per pair member: measured, and predicted before and after the fit."""
    table = Table(title="pairs on one device: normalized throughput (× alone, same run)",
                  title_justify="left")  # fmt: skip
    for column in ("pair", "member", "measured", "predicted before", "predicted after",
                   "error after"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("pair", "member") else "right")
    for pair in calibration.pairs:
        for m in pair.members:
            measured = "failed" if m.measured is None else f"{m.measured:.2f}"
            if m.measured_half_width is not None:
                measured += f" ± {m.measured_half_width:.2f}"
            error = "—" if m.measured is None else f"{m.measured - m.predicted_after:+.2f}"
            table.add_row(pair.label, m.name, measured, f"{m.predicted_before:.2f}",
                          f"{m.predicted_after:.2f}", error)  # fmt: skip
    return table


def calibration_summary(calibration: Calibration) -> list[str]:
    before, after = calibration.constants.before, calibration.constants.after
    error = calibration.median_absolute_error
    constants = (
        f"sharing {before.sharing} → {after.sharing}, "
        f"queue_weight {before.queue_weight:g} → {after.queue_weight:g}, sequential_penalty "
        f"{before.sequential_penalty:g} → {after.sequential_penalty:g}, model_error "
        f"{before.model_error:.3g} → {after.model_error:.3g}"
    )
    errors = (
        f"median absolute error: {error.before * 100:.1f} → {error.after * 100:.1f} percentage "
        f"points over {calibration.observations} observations"
    )
    said = [constants, errors]
    return said + [f"note: {note}" for note in calibration.notes]
