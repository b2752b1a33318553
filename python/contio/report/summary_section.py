"""The report's first section: what was run, where, when, what it found, what to mind."""

from __future__ import annotations

import json
from html import escape
from typing import Any

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


CLUSTER_BUILD_OPTIONS = ("nodes", "disks_per_node", "disk_size", "subnet")
"""Options of a gluster level that only say how to build a cluster that is not up: with
a named cluster that was up (or an SSH inventory) they are the defaults, not what ran."""


def _cluster_text(cluster: dict[str, Any]) -> str:
    """The cluster a gluster level used, from what its run recorded (`describe()`)."""
    nodes = [n for n in cluster.get("nodes") or [] if isinstance(n, dict)]
    config = cluster.get("config") or {}
    where = ", ".join(str(n.get("address") or n.get("host") or "?") for n in nodes)
    if cluster.get("kind") == "ssh":
        return f"SSH inventory {cluster.get('inventory', '?')}: {len(nodes)} nodes ({where})"
    disks = {len(n.get("brick_disks") or []) for n in nodes}
    fstypes = sorted({str(d.get("fstype")) for n in nodes for d in n.get("brick_disks") or []
                      if isinstance(d, dict) and d.get("fstype")})  # fmt: skip
    each = [*fstypes, *([str(config["disk_size"])] if config.get("disk_size") else [])]
    text = f"local cluster {cluster.get('name', '?')!r}: {len(nodes)} nodes ({where})"
    if len(disks) == 1:
        (count,) = disks
        text += f", {count} brick disk{'s' if count != 1 else ''} each"
        text += f" ({', '.join(each)})" if each else ""
    if config.get("subnet"):
        text += f", subnet {config['subnet']}"
    return text


def _describe(description: object) -> str:
    if description is None:
        return ""
    if not isinstance(description, dict):
        return str(description)
    cluster = description.get("cluster")
    parts = []
    for key, value in description.items():
        if key == "options" and isinstance(value, dict) and isinstance(cluster, dict):
            value = {k: v for k, v in value.items() if k not in CLUSTER_BUILD_OPTIONS}
        if key == "cluster" and isinstance(value, dict):
            parts.append(f"cluster: {_cluster_text(value)}")
            continue
        parts.append(f"{key}: {json.dumps(value, default=str)}")
    return ", ".join(parts)


def summary_section(
    exp: Experiment, headlines: list[str], warnings: list[str], headline: str | None = None
) -> Section:
    """Spec, backends, host, versions, dates; the headline, conclusions; warnings."""
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
    if headline:
        section.blocks.append(f'<p class="headline">{escape(headline)}</p>')
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
