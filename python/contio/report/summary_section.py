"""The report's first section: what was run, where, when, what it found, what to mind."""

from __future__ import annotations

import json
from html import escape

from contio.report.experiment import Experiment
from contio.report.page import Section, bullet_list, details, table

HOST_FACTS = (
    ("host", "hostname"),
    ("kernel", "kernel"),
    ("CPU", "cpu_model"),
    ("CPUs", "cpu_count"),
    ("memory", "memory_total"),
    ("contio", "contio_version"),
    ("engine", "engine_version"),
    ("Python", "python"),
)


def _facts(pairs: list[tuple[str, object]]) -> str:
    items = "".join(
        f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>" for k, v in pairs if v not in (None, "")
    )
    return f'<dl class="facts">{items}</dl>'


def _dates(exp: Experiment) -> tuple[str, str]:
    started = sorted(str(t) for t in exp.runs.get("started_at", []) if t)
    finished = sorted(str(t) for t in exp.cells.get("finished_at", []) if isinstance(t, str) and t)
    first = started[0] if started else ""
    last = finished[-1] if finished else (started[-1] if started else "")
    return first, last


def _describe(description: object) -> str:
    if description is None:
        return ""
    if isinstance(description, dict):
        return ", ".join(f"{k}: {json.dumps(v, default=str)}" for k, v in description.items())
    return str(description)


def summary_section(exp: Experiment, headlines: list[str], warnings: list[str]) -> Section:
    """Spec, backends, host, versions, dates; headline conclusions; warnings."""
    cells = exp.cells
    done = int((cells["status"] == "done").sum()) if not cells.empty else 0
    skipped = int((cells["status"] == "skipped").sum()) if not cells.empty else 0
    failed = int((cells["status"] == "failed").sum()) if not cells.empty else 0
    first, last = _dates(exp)
    section = Section("summary", "Summary")
    section.blocks.append(
        _facts(
            [
                ("experiment", exp.name),
                ("description", exp.spec.get("description", "")),
                ("profile", exp.meta.get("profile") or "(none)"),
                (
                    "cells",
                    f"{len(cells)}: {done} done, {skipped} skipped"
                    + (f", {failed} failed" if failed else ""),
                ),
                ("first run", first),
                ("last cell finished", last),
                ("results folder", exp.folder.name),
            ]
            + [(name, exp.host.get(key)) for name, key in HOST_FACTS]
        )
    )
    if headlines:
        section.blocks.append("<h3>Conclusions</h3>" + bullet_list(headlines, "headlines"))
    if warnings:
        section.blocks.append("<h3>Warnings</h3>" + bullet_list(warnings, "warnings"))
    if exp.backends:
        rows = [
            (b["name"], _describe(b["description"]) or "", b.get("unavailable") or "")
            for b in exp.backends
        ]
        section.blocks.append(
            table(("backend", "description", "unavailable"), rows, "Backends", css_class="backends")
        )
    if exp.spec_text:
        section.blocks.append(details("The spec as written", f"<pre>{escape(exp.spec_text)}</pre>"))
    return section
