"""Sections about single cells: stacked per-group throughput of isolation experiments
(004, Fig. 2–4) and per-cell time series shown on demand, with the fault events the
runner recorded for that repetition (a node stopped, restarted, healed) marked.
"""

from __future__ import annotations

import pandas as pd

from contio.report import figures
from contio.report.experiment import NO_CONTROLS, Experiment, group_label, groups
from contio.report.page import Section, details, figure
from contio.report.raw_documents import cell_time_series, repetition_events

MAX_FIGURES = 40
MAX_TIME_SERIES = 60


def isolation_section(exp: Experiment) -> Section:
    """One bar per io_controls level, stacked by container (one block I/O group each)."""
    section = Section("isolation", "Block I/O groups: throughput per group")
    done = exp.done()
    controlled = (
        "io_controls" in exp.factors and (exp.cells["io_controls"].astype(str) != NO_CONTROLS).any()
    )
    if done.empty or not controlled:
        return section
    others = [f for f in exp.varying(done) if f != "io_controls"]
    ok = exp.runs[exp.runs["status"] == "ok"]
    for levels, part in groups(done, others)[:MAX_FIGURES]:
        rows = []
        for _, cell in part.iterrows():
            mine = ok[ok["cell_key"] == cell["cell_key"]]
            for container, values in mine.groupby("container")["steady_ops_per_sec"]:
                rows.append(
                    {"case": str(cell["io_controls"]), "group": f"group {container}",
                     "bandwidth": float(values.mean())}
                )  # fmt: skip
        if not rows:
            continue
        title = group_label(levels, others)
        svg = figures.stacked_bandwidth(
            pd.DataFrame(rows), unit="ops/s", case_title="io_controls", title=title
        )
        section.blocks.append(
            figure(svg, "stacked-bandwidth", f"ops/s per group, mean over repetitions; {title}")
        )
    if section.blocks:
        section.intro = (
            "Each container runs in its own block I/O group (the io_controls level sets "
            "its limits or weight); bars stack the groups' mean ops/s."
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
            "in each second" + _outside_note(events, length)
        )
        section.blocks.append(details(summary, figure(svg, "time-series", caption)))
    if len(done) > MAX_TIME_SERIES and section.blocks:
        section.intro = f"The first {MAX_TIME_SERIES} cells of {len(done)}."
    return section
