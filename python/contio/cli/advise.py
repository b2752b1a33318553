"""`contio advise`: which applications may share a device, from their profiles."""

from __future__ import annotations

import os
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from contio.cli.root import cli
from contio.errors import UsageError
from contio.profile.placement import OBJECTIVES, Advice, Evaluation, Member, advise, evaluate
from contio.profile.schema import load_profile


def member_names(paths: list[Path]) -> list[str]:
    """`writer.profile.json` → `writer`; a profile given again → `writer#2`, …"""
    names: list[str] = []
    for path in paths:
        base = path.name.removesuffix(".json").removesuffix(".profile")
        name, k = base, 1
        while name in names:
            k += 1
            name = f"{base}#{k}"
        names.append(name)
    return names


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


@cli.command(name="advise")
@click.argument(
    "profiles", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path)
)
@click.option(
    "--places", required=True, help="Where members may go: disks of this host, comma-separated."
)
@click.option("--objective", type=click.Choice(OBJECTIVES), default="fairness", show_default=True,
              help="throughput: the most aggregate normalized throughput; fairness: the best "
                   "worst member; weighted: Σ weight × normalized (--weight).")  # fmt: skip
@click.option("--weight", "weights", multiple=True, metavar="NAME=W",
              help="A member's weight for --objective weighted (default 1).")  # fmt: skip
@click.option("--cores", type=float, default=None,
              help="CPUs of the host the members share [default: this machine's].")  # fmt: skip
@click.option("--check", "check", multiple=True, metavar="NAME=PLACE",
              help="Evaluate this placement too (every member given a place).")  # fmt: skip
def advise_command(
    profiles: tuple[Path, ...], places: str, objective: str, weights: tuple[str, ...],
    cores: float | None, check: tuple[str, ...],
) -> None:  # fmt: skip
    """Recommend which of the profiled applications share which disk.

    PROFILES are `contio profile` files, one per member (give one twice for two copies:
    `writer.profile.json writer.profile.json`). Every placement on --places is predicted
    with the interference model (docs/profiles.md) and the best for --objective is
    shown beside the naive round-robin one, with each member's predicted throughput as a
    fraction of its rate alone and why pairs were kept apart.
    """
    names = member_names(list(profiles))
    place_list = [p.strip() for p in places.split(",") if p.strip()]
    if not place_list:
        raise UsageError("--places: needs at least one place, e.g. --places sdb,sdc")
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
    host_cores = cores if cores is not None else float(os.cpu_count() or 1)
    advice = advise(members, place_list, objective, host_cores)
    checked = evaluate(members, checked_placement, host_cores) if checked_placement else None
    _print(Console() if Console().is_terminal else Console(width=160), advice, checked, objective)


def _weight(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise UsageError(f"--weight: {text!r} is not a positive number")
    return value
