"""`contio advise`: which applications may share a device, from their profiles."""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from contio.cli.root import cli
from contio.cli.run import results_dir_option, run_to_the_end, write_final_report
from contio.errors import UsageError
from contio.profile.calibration import load_calibration
from contio.profile.interference import DEFAULT_CONSTANTS, SHARING
from contio.profile.placement import (
    OBJECTIVES,
    Advice,
    Evaluation,
    Member,
    advise,
    evaluate,
    host_of,
    overfilled,
)
from contio.profile.places import (
    SHARING_SAID,
    capacities,
    places_sharing,
    read_places,
    shared_disks,
)
from contio.profile.schema import load_profile
from contio.profile.together import (
    Setting,
    measured_rates,
    member_names,
    together,
    together_spec,
)
from contio.profile.validation import (
    PlacementCheck,
    check_placement,
    median_absolute_error,
    placement_ratios,
    write_validation,
)
from contio.run.runner import Runner


def parse_pairs(option: str, values: tuple[str, ...], allowed: list[str]) -> dict[str, str]:
    """`NAME=VALUE` options (each may hold several, comma-separated), names checked."""
    found = {}
    for value in values:
        for part in value.split(","):
            name, sep, chosen = part.partition("=")
            if not sep or not name or not chosen:
                raise UsageError(f"{option}: {part!r} is not NAME=VALUE")
            if name not in allowed:
                raise UsageError(
                    f"{option}: {name!r} is not a member (members: {', '.join(allowed)})"
                )
            found[name] = chosen
    return found


def _placement_table(title: str, evaluation: Evaluation) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("member", "place", "predicted × alone", "±", "limited by"):
        table.add_column(
            column, justify="left" if column in ("member", "place", "limited by") else "right"
        )
    for name, prediction in evaluation.predictions.items():
        table.add_row(
            name, evaluation.placement[name], f"{prediction.normalized:.2f}",
            f"{prediction.uncertainty:.2f}", prediction.bottleneck,
        )  # fmt: skip
    return table


def _print(console: Console, advice: Advice, checked: Evaluation | None, objective: str) -> None:
    best, naive = advice.best, advice.naive
    console.print(
        _placement_table(f"recommended ({objective}; {advice.searched} placements searched)", best)
    )
    console.print(_placement_table("naive (round-robin, as a default scheduler spreads)", naive))
    if checked is not None:
        console.print(_placement_table("yours (--check)", checked))
    rows = [("recommended", best), ("naive", naive)] + ([("yours", checked)] if checked else [])
    for label, evaluation in rows:
        console.print(f"{label}: aggregate {evaluation.total:.2f} × alone, worst member "
                      f"{evaluation.worst:.2f} × alone", highlight=False)  # fmt: skip
    for reason in advice.reasons:
        console.print(f"- {reason}", highlight=False, soft_wrap=True)
    if advice.naive_overfills:
        console.print(f"note: the naive placement does not fit: {'; '.join(advice.naive_overfills)}",
                      highlight=False, soft_wrap=True)  # fmt: skip


@cli.command(name="advise")
@click.argument(
    "profiles", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--places", help="Where members may go, comma-separated: disks of this host (sdb), or of "
    "other hosts (node2:sdb; members on one host share its CPUs) [default: the places of "
    "--backends]."
)  # fmt: skip
@click.option(
    "--backends", "backends_file", type=click.Path(dir_okay=False, path_type=Path),
    help="A YAML file mapping each place to a backend definition, as a spec's `backends:` "
    "(needed by --validate).",
)  # fmt: skip
@click.option(
    "--validate", is_flag=True,
    help="Run the recommended and the naive placements (and each application alone on its "
    "places) and compare predicted with measured.",
)  # fmt: skip
@results_dir_option("Where --validate's results folder goes.")
@click.option("--objective", type=click.Choice(OBJECTIVES), default="fairness", show_default=True,
              help="throughput: the most aggregate normalized throughput; fairness: the best "
                   "worst member; weighted: Σ weight × normalized (--weight).")  # fmt: skip
@click.option("--weight", "weights", multiple=True, metavar="NAME=W",
              help="A member's weight for --objective weighted (default 1).")  # fmt: skip
@click.option("--cores", default=None, metavar="FLOAT",
              help="CPUs of each host [default: this machine's].")  # fmt: skip
@click.option("--check", "check", multiple=True, metavar="NAME=PLACE",
              help="Evaluate this placement too (every member given a place).")  # fmt: skip
@click.option("--sharing", type=click.Choice(["auto", *SHARING]), default="auto", show_default=True,
              help="How the places' devices divide themselves among members: fifo (arrival "
                   "order: none, mq-deadline, kyber schedulers) or fair (bfq time slices); "
                   "auto: the calibration's, else the places' own schedulers where they are "
                   "disks of this host, else fifo.")  # fmt: skip
@click.option("--calibration", type=click.Path(dir_okay=False, path_type=Path),
              help="The model's constants from `contio profile --pairs` (a "
                   "contio-calibration/1 file) [default: the uncalibrated ones].")  # fmt: skip
def advise_command(
    profiles: tuple[Path, ...], places: str | None, backends_file: Path | None, validate: bool,
    results_dir: Path, objective: str, weights: tuple[str, ...], cores: str | None,
    check: tuple[str, ...], sharing: str, calibration: Path | None,
) -> None:  # fmt: skip
    """Recommend which of the profiled applications share which disk.

    PROFILES are `contio profile` files, one per member (give one twice for two copies:
    `writer.profile.json writer.profile.json`). Every placement on --places is predicted
    with the interference model (docs/profiles.md) and the best for --objective is
    shown beside the naive round-robin one, with each member's predicted throughput as a
    fraction of its rate alone and why pairs were kept apart.
    """
    names = member_names(list(profiles))
    definitions = read_places(backends_file) if backends_file is not None else None
    place_list = _place_list(places, definitions)
    elsewhere = [p for p in place_list if host_of(p)]
    if validate and elsewhere:
        raise UsageError(
            f"--validate: runs on this host, and {', '.join(elsewhere)} "
            f"{'is' if len(elsewhere) == 1 else 'are'} on another: validate with this host's places"
        )  # fmt: skip
    if validate and definitions is None:
        raise UsageError(
            "--validate: needs --backends FILE, a backend definition per place, to run "
            "the placements on"
        )  # fmt: skip
    if weights and objective != "weighted":
        raise UsageError("--weight: weights only count with --objective weighted, not " + objective)
    weight_of = {n: _weight(v) for n, v in parse_pairs("--weight", weights, names).items()}
    members = [
        Member(name, load_profile(path), weight_of.get(name, 1.0))
        for name, path in zip(names, profiles, strict=True)
    ]
    checked_placement = parse_pairs("--check", check, names) if check else None
    if checked_placement is not None:
        missing = [n for n in names if n not in checked_placement]
        if missing:
            raise UsageError(f"--check: no place for {', '.join(missing)} (every member needs one)")
        unknown = sorted({p for p in checked_placement.values() if p not in place_list})
        if unknown:
            raise UsageError(
                f"--check: {', '.join(unknown)} not among --places ({', '.join(place_list)})"
            )
    host_cores = (
        positive_number("--cores", cores) if cores is not None else float(os.cpu_count() or 1)
    )
    constants = load_calibration(calibration).model_constants if calibration else DEFAULT_CONSTANTS
    if sharing != "auto":
        constants = replace(constants, sharing=sharing)
    elif calibration is None:
        constants = replace(constants, sharing=places_sharing(place_list, definitions))
    rooms = capacities(place_list, definitions)
    advice = advise(members, place_list, objective, host_cores, constants, rooms)
    checked = (
        evaluate(members, checked_placement, host_cores, constants) if checked_placement else None
    )
    console = Console() if Console().is_terminal else Console(width=160)
    if checked_placement and (overfills := overfilled(members, checked_placement, rooms)):
        console.print(f"note: your placement does not fit: {'; '.join(overfills)}",
                      highlight=False, soft_wrap=True)  # fmt: skip
    console.print(f"sharing law: {constants.sharing} ({SHARING_SAID[constants.sharing]})",
                  highlight=False)  # fmt: skip
    if calibration is not None:
        console.print(f"model constants from {calibration}: queue_weight {constants.queue_weight:g}, "
                      f"sequential_penalty {constants.sequential_penalty:g}, model_error "
                      f"{constants.model_error:.3g}", highlight=False, soft_wrap=True)  # fmt: skip
    _print(console, advice, checked, objective)
    if validate:
        assert definitions is not None
        places_used = {p: definitions[p] for p in place_list}
        _validate(console, members, advice, places_used, results_dir.resolve(), objective)


def _place_list(places: str | None, definitions: dict[str, dict[str, Any]] | None) -> list[str]:
    if places is None:
        if definitions is None:
            raise UsageError("--places: needs the places, e.g. --places sdb,sdc (or --backends)")
        return list(definitions)
    found = [p.strip() for p in places.split(",") if p.strip()]
    if not found:
        raise UsageError("--places: needs at least one place, e.g. --places sdb,sdc")
    if definitions is not None:
        unknown = [p for p in found if p not in definitions]
        if unknown:
            raise UsageError(
                f"--places: {', '.join(unknown)} not defined in --backends "
                f"(defined: {', '.join(definitions)})"
            )
    return found


def _validate(
    console: Console, members: list[Member], advice: Advice,
    places: dict[str, dict[str, Any]], results_dir: Path, objective: str,
) -> None:  # fmt: skip
    """Run both placements and each application alone; print predicted against measured."""
    names = [m.name for m in members]
    settings = [Setting("recommended", advice.best.placement)]
    evaluations = {"recommended": advice.best}
    if advice.naive.placement != advice.best.placement:
        settings.append(Setting("naive", advice.naive.placement))
        evaluations["naive"] = advice.naive
    else:
        console.print("the naive placement is the recommended one: running it once")
    for warning in shared_disks(places):
        console.print(f"note: {warning}", highlight=False, soft_wrap=True)
    profiles = {m.name: m.profile for m in members}
    spec, text = together(together_spec("advise-validate", profiles, settings, places))
    runner = Runner(spec, text, results_dir)
    outcome = run_to_the_end(runner)
    rates = measured_rates(outcome.folder.path)
    checks = [check_placement(s, evaluations[s.label], names, rates) for s in settings]
    path = write_validation(outcome.folder.path, checks, objective)
    write_final_report(outcome.folder.path)  # after validation.json: its first section
    for found in checks:
        console.print(validation_table(found))
    for line in validation_summary(checks):
        console.print(line, highlight=False, soft_wrap=True)
    console.print(f"validation: {path}", highlight=False, soft_wrap=True)
    console.print(f"results: {outcome.folder.path}", highlight=False, soft_wrap=True)


def validation_table(check: PlacementCheck) -> Table:
    table = Table(title=f"{check.label}: predicted against measured (× alone on its place)",
                  title_justify="left")  # fmt: skip
    for column in ("member", "place", "predicted", "measured", "error"):
        table.add_column(column, justify="left" if column in ("member", "place") else "right")
    for m in check.members:
        measured = "failed" if m.measured is None else f"{m.measured:.2f}"
        if m.measured_half_width is not None:
            measured += f" ± {m.measured_half_width:.2f}"
        error = "—" if m.error is None else f"{m.error:+.2f}"
        table.add_row(m.name, m.place, f"{m.predicted:.2f} ± {m.predicted_uncertainty:.2f}",
                      measured, error)  # fmt: skip
    return table


def validation_summary(checks: list[PlacementCheck]) -> list[str]:
    """Per placement its measured aggregate and worst member; the two side by side."""
    said = []
    for check in checks:
        aggregate, worst = check.aggregate, check.worst
        if aggregate is None or worst is None:
            said.append(f"{check.label}: not every member completed: no aggregate")
            continue
        half = "" if aggregate[1] is None else f" ± {aggregate[1]:.2f}"
        said.append(f"{check.label}: measured aggregate {aggregate[0]:.2f}{half} × alone, worst "
                    f"member {worst.name} {worst.measured:.2f} × alone")  # fmt: skip
    if len(checks) == 2 and (ratios := placement_ratios(*checks)) is not None:
        said.append(
            f"recommended against naive: worst member {ratios[0]:.2f}×, aggregate {ratios[1]:.2f}×"
        )
    error = median_absolute_error(checks)
    if error is not None:
        said.append(f"median absolute prediction error: {error * 100:.1f} percentage points")
    return said


def _weight(text: str) -> float:
    return positive_number("--weight", text)


def positive_number(option: str, text: str) -> float:
    """`text` as a finite number above 0 (`inf` and `nan` are floats to Python, not
    weights or CPU counts); `UsageError` naming `option` otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (math.isfinite(value) and value > 0):
        raise UsageError(f"{option}: {text!r} is not a positive number")
    return value
