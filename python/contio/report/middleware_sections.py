"""The I/O middleware's shares in a run (paper 004's middleware, docs/middleware.md).

For cells whose `io_controls` level has `middleware`, the runner writes, beside each
repetition's engine documents, every node report during the run
(`run-middleware.jsonl`: per node and tenant the share in force and the measured rate)
and the moments shares moved (`run-middleware-moves.json`); each row's `io_control`
holds its tenant's target (the fair share with every tenant of the level active). This
section draws achieved against target per tenant, and per cell the stacked per-node
timeline of its last complete repetition.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from contio.middleware.disk_names import node_of
from contio.report import share_figures
from contio.report.experiment import Experiment
from contio.report.page import Section, details, figure
from contio.results.folder import MIDDLEWARE_MOVES_JSON, MIDDLEWARE_SAMPLES_JSONL

ACTIVE_FRACTION = 0.01
"""A tenant moving less than this fraction of its target in a second is idle there: the
achieved rate is its mean over the seconds it was active."""


def _control(text: object) -> dict[str, Any]:
    try:
        found = json.loads(str(text))
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def middleware_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """The run rows whose container was a middleware tenant, with `tenant`, `target_bps`
    (per node) and `repetition_dir` added."""
    controls = [_control(c) for c in runs.get("io_control", pd.Series([], dtype=object))]
    keep = [bool(c.get("tenant")) and "fair_share_bps" in c for c in controls]
    rows = runs[keep].copy()
    chosen = [c for c, k in zip(controls, keep, strict=True) if k]
    rows["tenant"] = [c["tenant"] for c in chosen]
    rows["target_bps"] = [float(c["fair_share_bps"]) for c in chosen]
    rows["repetition_dir"] = [str(Path(r).parent) for r in rows["raw_json"]]
    return rows


def read_samples(folder: Path, repetition_dir: str) -> pd.DataFrame:
    """One repetition's node reports (columns t, node, tenant, measured_bps, target_bps),
    without the further disks of a node where nothing moved."""
    path = folder / repetition_dir / MIDDLEWARE_SAMPLES_JSONL
    try:
        lines = path.read_text().splitlines()
    except OSError:
        lines = []
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            continue  # a line cut by an interrupt
    columns = ["t", "node", "tenant", "measured_bps", "target_bps"]
    frame = pd.DataFrame.from_records(records, columns=columns)
    frame = frame.astype({"target_bps": float, "measured_bps": float})
    # A node's further brick disks (node1.d2) where no tenant moved anything held no
    # brick of the run's tenants: an empty panel each, left out.
    moved = frame.groupby("node")["measured_bps"].transform("max") > 0
    names = frame["node"].astype(str)
    return frame[moved | (names == names.map(node_of))]


def read_moves(folder: Path, repetition_dir: str) -> list[tuple[float, str]]:
    """(second since the samples began, node) of each share move of one repetition."""
    try:
        moves = json.loads((folder / repetition_dir / MIDDLEWARE_MOVES_JSON).read_text())
    except (OSError, ValueError):
        return []
    return [(float(m["t"]), str(m["node"])) for m in moves if "t" in m and "node" in m]


def achieved_per_node(samples: pd.DataFrame, tenant: str, target: float) -> float:
    """`tenant`'s mean per-node rate over the node reports in which it was active."""
    mine = samples[samples["tenant"] == tenant]
    active = mine[mine["measured_bps"] >= ACTIVE_FRACTION * target]
    return float(active["measured_bps"].mean()) if not active.empty else math.nan


def _share_table(exp: Experiment, rows: pd.DataFrame) -> pd.DataFrame:
    found = []
    for (case, tenant), mine in rows.groupby(["io_controls", "tenant"], sort=False):
        target = float(mine["target_bps"].iloc[0])
        per_rep = [
            achieved_per_node(read_samples(exp.folder, d), str(tenant), target)
            for d in mine["repetition_dir"].unique()
        ]
        values = pd.Series([v for v in per_rep if not math.isnan(v)], dtype=float)
        found.append(
            {"case": str(case), "tenant": str(tenant), "target_bps": target,
             "achieved_bps": values.mean(), "achieved_sd_bps": values.std(ddof=1)
             if len(values) > 1 else 0.0, "repetitions": len(values)}
        )  # fmt: skip
    return pd.DataFrame(found)


def middleware_section(exp: Experiment) -> Section:
    """Achieved against target share per tenant, and per cell the per-node timeline."""
    section = Section("middleware", "I/O middleware: tenants' shares on the storage nodes")
    ok = exp.runs[exp.runs["status"] == "ok"] if not exp.runs.empty else exp.runs
    if ok.empty or "io_control" not in ok:
        return section
    rows = middleware_rows(ok)
    if rows.empty:
        return section
    cells = exp.cells.set_index("cell_key")
    rows = rows.assign(io_controls=[cells.at[k, "io_controls"] for k in rows["cell_key"]])
    table = _share_table(exp, rows).dropna(subset=["achieved_bps"])
    # The levels in the spec's order (the rows come in the run's, random, order).
    levels = list((exp.spec.get("factors") or {}).get("io_controls") or [])
    if not table.empty:
        rank = {name: k for k, name in enumerate(levels)}
        table = table.sort_values("case", key=lambda c: c.map(lambda v: rank.get(v, len(rank))))
    if not table.empty:
        svg = share_figures.share_bars(table, title="achieved per node against target")
        section.blocks.append(
            figure(
                svg,
                "share-bars",
                "per storage node, while the tenant was reading or "
                "writing; dash: its share with every tenant of the level active "
                "(Algorithm 1 of paper 004 within reservations and limits)",
            )
        )
    for key, mine in rows.groupby("cell_key", sort=False):
        last = max(mine["repetition_dir"].unique())
        samples = read_samples(exp.folder, last)
        if samples.empty:
            continue
        svg = share_figures.tenant_timeline(
            samples, read_moves(exp.folder, last), str(cells.at[key, "label"])
        )
        summary = f"cell {cells.at[key, 'cell_index']}: {cells.at[key, 'label']} ({last})"
        section.blocks.append(
            details(
                summary,
                figure(
                    svg,
                    "tenant-timeline",
                    "MB/s per tenant on each node, stacked; dashed: its share in force",
                ),
            )
        )
    section.intro = (
        "Each tenant's containers keep their data on the tenant's own Gluster volume; the "
        "node agents put each tenant's brick processes in a cgroup of their own on every "
        "storage node and throttle it to the share the coordinator gives it "
        "(docs/middleware.md)."
    )
    return section
