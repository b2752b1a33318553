"""Paper 004's charts of bandwidth shares, as pure functions from a DataFrame to SVG
(the same conventions as `figures`):

- `stacked_bandwidth` — per-group bandwidth stacked per case (paper 004, Fig. 2–4);
- `tenant_timeline` — per storage node, tenants' measured bandwidth stacked over time,
  their shares in force, and the moments shares moved (paper 004's middleware);
- `share_bars` — each tenant's achieved bandwidth per node against its target share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from contio.report.chart_style import (
    ERROR_BARS,
    black_and_white,
    categories,
    grouped_offsets,
    label,
    new_figure,
    require_columns,
    series_styles,
    to_svg,
)

LABEL_BOX = {"boxstyle": "square,pad=0.15", "facecolor": "white", "edgecolor": "none"}
BEYOND_AXIS = 1.5
"""A target more than this many times the tallest bar is marked at the top edge instead:
a throttle set far above what anything reached ("no limit" as 10 GB/s) would otherwise
set the axis and flatten every measured bar."""


def _targets_by_case(
    data: pd.DataFrame, cases: list[object], groups: list[object]
) -> list[list[tuple[float, str]]]:
    """Per case, (the target's height in the stack, its label) of every group with one."""
    found: list[list[tuple[float, str]]] = [[] for _ in cases]
    if "target" not in data:
        return found
    bottom = np.zeros(len(cases))
    for group in groups:
        rows = data[data["group"] == group].groupby("case", sort=False)
        values = rows["bandwidth"].sum().reindex(cases).fillna(0).to_numpy(dtype=float)
        targets = rows["target"].first().reindex(cases).to_numpy(dtype=float)
        texts = (
            rows["target_label"].first().reindex(cases).fillna("").tolist()
            if "target_label" in data
            else [""] * len(cases)
        )
        for i, (target, text) in enumerate(zip(targets, texts, strict=True)):
            if not math.isnan(target):
                found[i].append((bottom[i] + target, str(text)))
        bottom += values
    return found


@black_and_white
def stacked_bandwidth(
    data: pd.DataFrame,
    unit: str = "MB/s",
    case_title: str = "case",
    title: str = "",
    quantity: str = "aggregate bandwidth",
) -> str:
    """Per-group bandwidth stacked into one bar per case (paper 004's isolation experiments).

    Columns: `case` (x axis, e.g. "throttle 10 MB/s"), `group` (VNode), `bandwidth`
    (`unit`); optional `target` (`unit`, NaN for none): what the group's control
    asks — a throttle's limit, or a weight's share of the bar — drawn as a black
    dash across the bar at the group's segment bottom plus the target, with its
    `target_label` (e.g. "≤ 10.0", "w 50: 50%") beside it. The axis follows the
    measurements: a target beyond `BEYOND_AXIS` × the tallest bar is not drawn at its
    height but listed at the top edge of its bar with an arrow ("↑ ≤ 9,536.7 MiB/s").
    """
    require_columns(data, ["case", "group", "bandwidth"], "stacked_bandwidth")
    cases, groups = categories(data["case"]), categories(data["group"])
    fig, (ax,) = new_figure()
    bottom = np.zeros(len(cases))
    for group, style in zip(groups, series_styles(len(groups)), strict=True):
        rows = data[data["group"] == group].groupby("case", sort=False)
        values = rows["bandwidth"].sum().reindex(cases).fillna(0).to_numpy(dtype=float)
        ax.bar(np.arange(len(cases)), values, 0.6, bottom=bottom, label=label(group),
               **style.bar_kwargs())  # fmt: skip
        bottom += values
    tallest = float(bottom.max()) if len(bottom) and bottom.max() > 0 else 1.0
    targets = _targets_by_case(data, cases, groups)
    within = [y for found in targets for y, _ in found if y <= BEYOND_AXIS * tallest]
    top = 1.12 * max([tallest, *within])
    marked = False
    for i, found in enumerate(targets):
        beyond = sorted({text or "target" for y, text in found if y > BEYOND_AXIS * tallest})
        for y, text in found:
            if y > BEYOND_AXIS * tallest:
                continue
            ax.hlines(y, i - 0.38, i + 0.38, colors="black", linestyles="--", linewidth=1.5,
                      label=None if marked else "target (throttle limit or weight share)")  # fmt: skip
            marked = True
            if text:  # on white: a low limit's label may reach into the next bar
                ax.annotate(label(text), (i + 0.38, y), xytext=(3, 0), bbox=LABEL_BOX,
                            textcoords="offset points", va="center", fontsize=7)  # fmt: skip
        if beyond:
            count = sum(1 for y, _ in found if y > BEYOND_AXIS * tallest)
            ax.annotate(
                label(f"↑ {count} above the axis:\n{', '.join(beyond)}"), (i, top),
                xytext=(0, -4), textcoords="offset points", ha="center", va="top", fontsize=7,
                bbox=LABEL_BOX,
            )  # fmt: skip
            marked = True
    ax.set_xticks(np.arange(len(cases)), [label(c) for c in cases])
    # Room right of the last bar for its target labels.
    ax.set_xlim(-0.6, len(cases) - 0.4 + (0.5 if marked else 0.0))
    ax.set_xlabel(label(case_title))
    ax.set_ylabel(f"{label(quantity)} ({label(unit)})")
    ax.set_ylim(0, top)
    ax.legend(title="group", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(label(title))
    return to_svg(fig)


MB = 1e6


@black_and_white
def tenant_timeline(
    data: pd.DataFrame, moves: Sequence[tuple[float, str]] = (), title: str = ""
) -> str:
    """One panel per storage node: each tenant's measured bandwidth stacked over time
    (hatched areas) and its share in force (a step line), in MB/s (paper 004's middleware).

    Columns: `t` (seconds since the run started), `node`, `tenant`, `measured_bps`,
    `target_bps` (NaN: no share). `moves` are (second, node) pairs: when a node's shares
    moved, drawn as dotted vertical lines on that node's panel.
    """
    require_columns(data, ["t", "node", "tenant", "measured_bps", "target_bps"], "tenant_timeline")
    nodes, tenants = categories(data["node"]), categories(data["tenant"])
    fig, axes = new_figure(nrows=len(nodes), sharex=True)
    styles = series_styles(len(tenants))
    for ax, node in zip(axes, nodes, strict=True):
        mine = data[data["node"] == node]
        times = sorted(mine["t"].unique())
        measured = [
            mine[mine["tenant"] == t].groupby("t")["measured_bps"].sum().reindex(times).fillna(0)
            / MB
            for t in tenants
        ]
        stacked = ax.stackplot(times, *measured, labels=[label(t) for t in tenants])
        for area, style in zip(stacked, styles, strict=True):
            area.set(hatch=style.hatch, facecolor="white", edgecolor=style.color)
        for tenant, style in zip(tenants, styles, strict=True):
            target = mine[mine["tenant"] == tenant].groupby("t")["target_bps"].first() / MB
            ax.step(target.index, target.to_numpy(), where="post", linestyle="--",
                    color=style.color, linewidth=1, label=label(f"{tenant} share"))  # fmt: skip
        for second, where in moves:
            if where == node:
                ax.axvline(second, color="black", linestyle=":", linewidth=0.8)
        ax.set_ylabel(f"{label(str(node))} (MB/s)")
        ax.set_ylim(bottom=0)
    axes[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=7)
    axes[-1].set_xlabel("time (s); dotted: shares moved")
    fig.suptitle(label(title))
    return to_svg(fig)


@black_and_white
def share_bars(data: pd.DataFrame, title: str = "") -> str:
    """Per case and tenant: achieved MB/s per node (mean ± s.d. over repetitions) against
    the tenant's target share, drawn as a black dash.

    Columns: `case`, `tenant`, `achieved_bps`, `achieved_sd_bps`, `target_bps`.
    """
    require_columns(data, ["case", "tenant", "achieved_bps", "achieved_sd_bps", "target_bps"],
             "share_bars")  # fmt: skip
    cases, tenants = categories(data["case"]), categories(data["tenant"])
    offsets, width = grouped_offsets(len(tenants))
    fig, (ax,) = new_figure()
    marked = False
    for tenant, style, offset in zip(tenants, series_styles(len(tenants)), offsets, strict=True):
        rows = data[data["tenant"] == tenant].set_index("case").reindex(cases)
        x = np.arange(len(cases)) + offset
        ax.bar(x, rows["achieved_bps"] / MB, width, yerr=rows["achieved_sd_bps"] / MB,
               capsize=3, label=label(tenant), error_kw=ERROR_BARS,
               **style.bar_kwargs())  # fmt: skip
        for xi, target in zip(x, rows["target_bps"], strict=True):
            if isinstance(target, (int, float)) and not math.isnan(target):
                ax.hlines(target / MB, xi - width / 2, xi + width / 2, colors="black",
                          linewidth=2, label=None if marked else "target share")  # fmt: skip
                marked = True
    ax.set_xticks(np.arange(len(cases)), [label(c) for c in cases])
    ax.set_xlabel("io_controls")
    ax.set_ylabel("per storage node (MB/s)")
    ax.set_ylim(bottom=0)
    ax.legend(title="tenant (error bar: ±1 s.d.)", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(label(title))
    return to_svg(fig)
