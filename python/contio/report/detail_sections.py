"""Sections about single cells: the validity checks of each (`contio.findings.validity`),
stacked per-group throughput of isolation experiments
(paper 004, Fig. 2–4; docs/papers.md) and per-cell time series shown on demand, with
the fault events the runner recorded for that repetition (a node stopped, restarted,
healed) marked.
"""

from __future__ import annotations

import json
import math

import pandas as pd

from contio.experiment.parts import NO_CONTROLS
from contio.findings.validity_check import ValidityCheck
from contio.report import figures, share_figures
from contio.report.experiment import Experiment, group_label, groups
from contio.report.page import Section, details, figure, table
from contio.report.raw_documents import cell_time_series, repetition_events

MAX_FIGURES = 40
MAX_TIME_SERIES = 60


MIB = 1024 * 1024
DEFAULT_WEIGHT = 100
"""The weight of a group that sets none (BFQ's and io.weight's default)."""


def _bandwidths(mine: pd.DataFrame) -> tuple[pd.Series, str]:
    """Per container, the mean over repetitions of MiB/s read + written (file workloads),
    else of steady ops/s; and the unit."""
    if mine["read_mib_per_sec"].notna().all() and mine["written_mib_per_sec"].notna().all():
        moved = mine["read_mib_per_sec"] + mine["written_mib_per_sec"]
        return moved.groupby(mine["container"]).mean(), "MiB/s"
    return mine.groupby("container")["steady_ops_per_sec"].mean(), "ops/s"


def _applied_limits(mine: pd.DataFrame) -> dict[int, float]:
    """Per container, the read + write byte limits the run applied (its rows'
    `io_control`): a limit given in percent is known only once the run resolved it."""
    found: dict[int, float] = {}
    for container, control in zip(mine["container"], mine["io_control"], strict=True):
        try:
            limits = json.loads(control).get("limits") or {}
        except (TypeError, ValueError, AttributeError):
            continue
        values = [limits.get(key) for key in ("read_bps", "write_bps")]
        total = sum(v for v in values if isinstance(v, (int, float)))
        if total:
            found[int(container)] = float(total)
    return found


def _targets(
    groups: list[dict], bandwidth: pd.Series, unit: str, applied: dict[int, float]
) -> dict[int, tuple[float, str]]:
    """Per container position, what its group's control asks: a throttle's byte limit
    (MiB/s only: reads and writes limits added; as applied, so a percent shows what it
    came to), or its weight's share of the bar."""
    found: dict[int, tuple[float, str]] = {}
    present = [k for k in bandwidth.index if k <= len(groups)]
    weights = {k: groups[k - 1].get("weight") for k in present}
    if any(w is not None for w in weights.values()):
        total_weight = sum(w or DEFAULT_WEIGHT for w in weights.values())
        total = float(bandwidth.sum())
        for k, weight in weights.items():
            share = (weight or DEFAULT_WEIGHT) / total_weight
            found[k] = (share * total, f"w {weight or DEFAULT_WEIGHT}: {share:.0%}")
    if unit == "MiB/s":
        for k in present:
            values = [groups[k - 1].get(key) for key in ("read_bps", "write_bps")]
            limit = applied.get(k) or sum(v for v in values if isinstance(v, (int, float)))
            if limit:
                asked = [v for v in values if isinstance(v, str)]  # percents: "25%"
                shown = f"≤ {limit / MIB:.1f} MiB/s" + (f" ({' + '.join(asked)})" if asked else "")
                found[k] = (limit / MIB, shown)
    return found


def _isolation_rows(exp: Experiment, part: pd.DataFrame, ok: pd.DataFrame) -> tuple[list, str]:
    rows, unit = [], "ops/s"
    controls = exp.spec.get("io_controls") or {}
    for _, cell in part.iterrows():
        mine = ok[ok["cell_key"] == cell["cell_key"]]
        if mine.empty:
            continue
        bandwidth, unit = _bandwidths(mine)
        groups = (controls.get(str(cell["io_controls"])) or {}).get("groups") or []
        targets = _targets(groups, bandwidth, unit, _applied_limits(mine))
        for container, value in bandwidth.items():
            target, text = targets.get(int(container), (math.nan, ""))
            rows.append(
                {"case": str(cell["io_controls"]), "group": f"group {container}",
                 "bandwidth": float(value), "target": target, "target_label": text}
            )  # fmt: skip
    return rows, unit


def isolation_section(exp: Experiment) -> Section:
    """One bar per io_controls level, stacked by container (one block I/O group each):
    MiB/s read + written for file workloads (paper 004, Fig. 2–4), ops/s otherwise, with
    each group's throttle limit or weight share marked."""
    section = Section("isolation", "Block I/O groups: bandwidth per group")
    done = exp.done()
    controlled = (
        "io_controls" in exp.factors and (exp.cells["io_controls"].astype(str) != NO_CONTROLS).any()
    )
    if done.empty or not controlled:
        return section
    others = [f for f in exp.varying(done) if f != "io_controls"]
    ok = exp.runs[exp.runs["status"] == "ok"]
    for levels, part in groups(done, others)[:MAX_FIGURES]:
        rows, unit = _isolation_rows(exp, part, ok)
        if not rows:
            continue
        title = group_label(levels, others)
        quantity = "read + written" if unit == "MiB/s" else "aggregate throughput"
        svg = share_figures.stacked_bandwidth(
            pd.DataFrame(rows), unit=unit, case_title="io_controls", title=title,
            quantity=quantity,
        )  # fmt: skip
        section.blocks.append(
            figure(
                svg,
                "stacked-bandwidth",
                f"{quantity} ({unit}) per group, mean over repetitions; dashes: the "
                f"group's throttle limit or weight share; {title}",
            )
        )
    if section.blocks:
        section.intro = (
            "Each container runs in its own block I/O group (the io_controls level sets "
            "its limits or weight); bars stack the groups' mean MiB/s read and written "
            "(file workloads; ops/s for YCSB workloads), warm-up left out. A dash marks "
            "what the group's control asks: a throttle's limit (read and write limits "
            "added), or its weight's share of the bar (groups without a weight count "
            f"{DEFAULT_WEIGHT}, the default)."
        )
    return section


def _outside_note(events: list[tuple[float, str]], length: float) -> str:
    """Events of the repetition that fell outside its run (a restart done after it)."""
    outside = [f"{text} at {second:.1f} s" for second, text in events if not 0 <= second <= length]
    return f"; outside the {length:.0f} s run: {', '.join(outside)}" if outside else ""


def time_series_section(exp: Experiment) -> Section:
    """Per cell, ops/s and p99 per second of its last completed repetition, in <details>."""
    section = Section("time-series", "Time series per cell")
    done = exp.done()
    if done.empty:
        return section
    ok = exp.runs[exp.runs["status"] == "ok"]
    for _, cell in done.head(MAX_TIME_SERIES).iterrows():
        mine = ok[ok["cell_key"] == cell["cell_key"]]
        counts = mine.groupby(["session", "repetition"])["container"].count()
        complete = [k for k, n in counts.items() if n == cell["members"]]
        if not complete:
            continue
        session, repetition = complete[-1]
        phases = mine[(mine["session"] == session) & (mine["repetition"] == repetition)]
        series = cell_time_series(exp.folder, phases)
        if series.empty:
            continue
        length = float(series["second"].max())
        events = repetition_events(exp.folder, phases)
        marks = [(s, text) for s, text in events if 0 <= s <= length]
        svg = figures.time_series(series, events=marks, title=str(cell["label"]))
        summary = f"cell {cell['cell_index']}: {cell['label']} (repetition {repetition})"
        caption = (
            "ops/s summed over containers; p99 of the slowest operation type and container "
            "in each second (none, a gap, in a second without a completed operation)"
            + _outside_note(events, length)
        )
        section.blocks.append(details(summary, figure(svg, "time-series", caption)))
    if len(done) > MAX_TIME_SERIES and section.blocks:
        section.intro = f"The first {MAX_TIME_SERIES} cells of {len(done)}."
    return section


VERDICTS = {True: "passed", False: "FAILED", None: "cannot tell"}


def _check_rows(exp: Experiment, checks: list[ValidityCheck]) -> list[list[object]]:
    cells = {
        str(c["cell_key"]): f"{c['cell_index']}: {c['label']}" for _, c in exp.cells.iterrows()
    }
    rank = {False: 0, None: 1, True: 2}  # failures first: what a reader must see
    ordered = sorted(checks, key=lambda c: (c.cell_key is not None, rank[c.passed]))
    return [
        [
            cells.get(c.cell_key, c.cell_key) if c.cell_key else f"every cell ({c.factor})",
            c.name,
            VERDICTS[c.passed],
            c.reason,
        ]
        for c in ordered
    ]


def validity_section(exp: Experiment) -> Section:
    """Per cell, whether it measured storage: every validity check, its verdict and why
    (docs/validity.md)."""
    section = Section("validity", "Validity checks per cell")
    if exp.runs.empty:
        return section
    checks = list(exp.checks().checks)
    if not checks:
        return section
    failed = sum(1 for c in checks if c.passed is False)
    section.intro = (
        f"{failed} of {len(checks)} checks failed. A failed check means the cell measured "
        "something other than storage (the CPU, the page cache), a throttle the device "
        "never feels, or an order effect; a finding resting on it is not valid here. "
        "Thresholds and remedies: docs/validity.md."
    )
    section.blocks.append(
        table(["cell", "check", "verdict", "reason"], _check_rows(exp, checks), css_class="checks")
    )
    return section
