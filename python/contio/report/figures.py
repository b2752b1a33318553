"""The papers' kinds of charts, as pure functions from a pandas DataFrame to an SVG string.

Each function documents the columns it reads; other columns are ignored, missing
ones raise `FigureDataError` naming the chart and the columns. Names in the data
(backends, applications, groups) are user input: matplotlib escapes them for XML,
and `chart_style.label` keeps a `$` from starting math mode.

The papers are listed in docs/papers.md.

- `throughput_vs_threads` — one line per backend with CI bands (paper 000, Fig. 3–5);
- `scaling` — cumulative and per-container throughput against containers, CPU and
  disk utilization beside, saturation point and valley marked (paper 003, Fig. 3, 5–7);
- `latency_vs_containers` — a latency percentile against containers (paper 003, Fig. 4);
- `mix_bars` — applications in heterogeneous mixes against standalone (paper 003,
  Fig. 8–11);
- `stacked_bandwidth` — per-group bandwidth stacked per case (paper 004, Fig. 2–4);
- `read_write_bars` — reads and writes per storage with error bars (paper 002, Fig. 1–2);
- `time_series` — ops/s and p99 latency over time with events marked;
- `tenant_timeline` — per storage node, tenants' measured bandwidth stacked over time,
  their shares in force, and the moments shares moved (paper 004's middleware);
- `share_bars` — each tenant's achieved bandwidth per node against its target share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from contio.errors import FigureDataError
from contio.report.chart_style import (
    black_and_white,
    label,
    new_figure,
    series_styles,
    to_svg,
)

ERROR_BARS = {"ecolor": "black"}


def _require(data: pd.DataFrame, columns: Sequence[str], chart: str) -> None:
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise FigureDataError(
            chart, f"missing column(s) {', '.join(missing)}; needs: {', '.join(columns)}"
        )
    if data.empty:
        raise FigureDataError(chart, "no rows to plot")


def _categories(values: pd.Series) -> list[object]:
    """Distinct values in first-seen order (the order the experiment listed them)."""
    return list(dict.fromkeys(values.tolist()))


@black_and_white
def throughput_vs_threads(
    data: pd.DataFrame,
    title: str = "",
    unit: str = "ops/s",
    x_column: str = "threads",
    series: str = "backend",
) -> str:
    """Mean throughput against client threads, one line per backend, 95% CI as a band.

    Columns: `backend` (the series: the lines are named by `series`, e.g. `target`),
    `threads` (or `x_column`), `mean`, `ci_low`, `ci_high` (in `unit`).
    """
    _require(data, ["backend", x_column, "mean", "ci_low", "ci_high"], "throughput_vs_threads")
    fig, (ax,) = new_figure()
    backends = _categories(data["backend"])
    for name, style in zip(backends, series_styles(len(backends)), strict=True):
        rows = data[data["backend"] == name].sort_values(x_column)
        ax.plot(rows[x_column], rows["mean"], label=label(name), **style.line_kwargs())
        ax.fill_between(
            rows[x_column], rows["ci_low"], rows["ci_high"],
            facecolor="none", edgecolor=style.color, hatch=style.hatch or "..", linewidth=0,
            alpha=0.5,
        )  # fmt: skip
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"{label(x_column)} (count)")
    ax.set_ylabel(f"throughput ({label(unit)})")
    ax.set_ylim(bottom=0)
    ax.legend(title=f"{label(series)} (band: 95% CI)")
    ax.set_title(label(title))
    return to_svg(fig)


@black_and_white
def scaling(
    data: pd.DataFrame,
    saturation: float | None = None,
    valley: tuple[float, float] | None = None,
    title: str = "",
    unit: str = "ops/s",
) -> str:
    """Throughput against containers (left) and CPU / disk utilization (right).

    Columns: `containers`, `cumulative_mean`, `cumulative_ci_low`, `cumulative_ci_high`,
    `per_container_mean` (in `unit`); optional `cpu_percent`, `disk_percent` (0–100):
    without them (or all NaN) the utilization panel is left out.
    `saturation` is the saturation level; `valley` is (peak level, bottom level).
    """
    columns = [
        "containers", "cumulative_mean", "cumulative_ci_low", "cumulative_ci_high",
        "per_container_mean",
    ]  # fmt: skip
    _require(data, columns, "scaling")
    rows = data.sort_values("containers")
    x = rows["containers"]
    utilization = [
        c for c in ("cpu_percent", "disk_percent") if c in rows and rows[c].notna().any()
    ]
    fig, axes = new_figure(ncols=2 if utilization else 1)
    left = axes[0]
    cumulative, per_container, cpu, disk = series_styles(4)
    ci = [rows["cumulative_mean"] - rows["cumulative_ci_low"],
          rows["cumulative_ci_high"] - rows["cumulative_mean"]]  # fmt: skip
    left.errorbar(x, rows["cumulative_mean"], yerr=ci, capsize=3, label="cumulative (95% CI)",
                  **cumulative.line_kwargs())  # fmt: skip
    left.plot(x, rows["per_container_mean"], label="per container", **per_container.line_kwargs())
    if saturation is not None:
        left.axvline(saturation, color="black", linestyle=(0, (6, 3)), linewidth=1)
        left.annotate(f"saturation: {saturation:g}", (saturation, 0), xytext=(4, 6),
                      textcoords="offset points", rotation=90, va="bottom")  # fmt: skip
    if valley is not None:
        peak, bottom = valley
        y_bottom = float(rows.loc[rows["containers"] == bottom, "cumulative_mean"].iloc[0])
        left.annotate(
            f"valley ({peak:g} → {bottom:g})", (bottom, y_bottom), xytext=(0, -28),
            textcoords="offset points", ha="center",
            arrowprops={"arrowstyle": "->", "color": "black"},
        )  # fmt: skip
    left.xaxis.set_major_locator(MaxNLocator(integer=True))
    left.set_xlabel("containers (count)")
    left.set_ylabel(f"throughput ({label(unit)})")
    left.set_ylim(bottom=0)
    left.legend()
    if utilization:
        right = axes[1]
        names = {"cpu_percent": ("CPU", cpu), "disk_percent": ("disk bandwidth", disk)}
        for column in utilization:
            name, style = names[column]
            right.plot(x, rows[column], label=name, **style.line_kwargs())
        right.xaxis.set_major_locator(MaxNLocator(integer=True))
        right.set_xlabel("containers (count)")
        right.set_ylabel("utilization (%)")
        right.set_ylim(0, 105)
        right.legend()
    fig.suptitle(label(title))
    return to_svg(fig)


@black_and_white
def latency_vs_containers(data: pd.DataFrame, percentile: str = "p95", title: str = "") -> str:
    """A latency percentile against containers, one line per series (application, mix).

    Columns: `series`, `containers`, `latency_ms`.
    """
    _require(data, ["series", "containers", "latency_ms"], "latency_vs_containers")
    fig, (ax,) = new_figure()
    names = _categories(data["series"])
    for name, style in zip(names, series_styles(len(names)), strict=True):
        rows = data[data["series"] == name].sort_values("containers")
        ax.plot(rows["containers"], rows["latency_ms"], label=label(name), **style.line_kwargs())
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("containers (count)")
    ax.set_ylabel(f"{label(percentile)} latency (ms)")
    ax.set_ylim(bottom=0)
    ax.legend()
    ax.set_title(label(title))
    return to_svg(fig)


def _change_label(percent_of_standalone: float) -> str:
    """ "17% less" (or "5% more") than standalone; empty where the mix lacks the application."""
    if math.isnan(percent_of_standalone):
        return ""
    change = percent_of_standalone - 100
    return f"{-change:.0f}% less" if change <= 0 else f"{change:.0f}% more"


def _grouped_offsets(groups: int) -> tuple[np.ndarray, float]:
    width = 0.8 / groups
    return (np.arange(groups) - (groups - 1) / 2) * width, width


@black_and_white
def mix_bars(data: pd.DataFrame, jain: dict[str, float] | None = None, title: str = "") -> str:
    """Each application's throughput in each mix as a percentage of its standalone throughput.

    Columns: `mix`, `application`, `mean`, `ci_low`, `ci_high`, `standalone_mean` (any
    unit, the same within an application; `ci_high` NaN: no upper bound, no error bar
    above). Bars are labelled with the degradation; `jain` maps a mix to its fairness
    index, shown under the mix's name.
    """
    columns = ["mix", "application", "mean", "ci_low", "ci_high", "standalone_mean"]
    _require(data, columns, "mix_bars")
    mixes, apps = _categories(data["mix"]), _categories(data["application"])
    offsets, width = _grouped_offsets(len(apps))
    fig, (ax,) = new_figure()
    for app, style, offset in zip(apps, series_styles(len(apps)), offsets, strict=True):
        rows = data[data["application"] == app].set_index("mix").reindex(mixes)
        share = 100 * rows["mean"] / rows["standalone_mean"]
        err = [share - 100 * rows["ci_low"] / rows["standalone_mean"],
               100 * rows["ci_high"] / rows["standalone_mean"] - share]  # fmt: skip
        x = np.arange(len(mixes)) + offset
        bars = ax.bar(x, share, width, yerr=err, capsize=3, label=label(app),
                      error_kw=ERROR_BARS, **style.bar_kwargs())  # fmt: skip
        ax.bar_label(bars, labels=[_change_label(s) for s in share], padding=2, fontsize=8)
    ax.axhline(100, color="black", linestyle="--", linewidth=1, label="standalone")
    ticks = [label(m) + (f"\nJain {jain[m]:.2f}" if jain and m in jain else "") for m in mixes]
    ax.set_xticks(np.arange(len(mixes)), ticks)
    ax.set_xlabel("mix")
    ax.set_ylabel("throughput (% of standalone)")
    highs = (100 * data["ci_high"] / data["standalone_mean"]).to_numpy(dtype=float)
    highs = highs[np.isfinite(highs)]  # no upper bound: an unbounded interval
    ax.set_ylim(0, max(110.0, float(highs.max()) + 15 if highs.size else 0.0))
    ax.legend(title="application (error bar: 95% CI)")
    ax.set_title(label(title))
    return to_svg(fig)


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
    _require(data, ["case", "group", "bandwidth"], "stacked_bandwidth")
    cases, groups = _categories(data["case"]), _categories(data["group"])
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


@black_and_white
def read_write_bars(data: pd.DataFrame, unit: str = "operations/s", title: str = "") -> str:
    """Mean reads and writes per storage option with ± one standard deviation (paper 002).

    Columns: `storage`, `operation` (e.g. read, write), `mean`, `std` (in `unit`).
    """
    _require(data, ["storage", "operation", "mean", "std"], "read_write_bars")
    operations, storages = _categories(data["operation"]), _categories(data["storage"])
    offsets, width = _grouped_offsets(len(storages))
    fig, (ax,) = new_figure()
    for storage, style, offset in zip(storages, series_styles(len(storages)), offsets, strict=True):
        rows = data[data["storage"] == storage].set_index("operation").reindex(operations)
        ax.bar(np.arange(len(operations)) + offset, rows["mean"], width, yerr=rows["std"],
               capsize=3, label=label(storage), error_kw=ERROR_BARS,
               **style.bar_kwargs())  # fmt: skip
    ax.set_xticks(np.arange(len(operations)), [label(o) for o in operations])
    ax.set_xlabel("operation")
    ax.set_ylabel(f"mean ({label(unit)})")
    ax.legend(title="storage (error bar: ±1 s.d.)")
    ax.set_title(label(title))
    return to_svg(fig)


@black_and_white
def time_series(
    data: pd.DataFrame, events: Sequence[tuple[float, str]] = (), title: str = ""
) -> str:
    """Ops/s (top) and p99 latency (bottom) per second of one cell, events as vertical lines.

    Columns: `second` (since the start), `ops_per_s`, `p99_ms` (NaN in a second without
    operations: the p99 line has a gap there, not a fall to 0). `events` are
    (second, label) pairs such as (30, "node 2 stopped").
    """
    _require(data, ["second", "ops_per_s", "p99_ms"], "time_series")
    rows = data.sort_values("second")
    fig, (top, bottom) = new_figure(nrows=2, sharex=True)
    ops, p99 = series_styles(2)
    top.plot(rows["second"], rows["ops_per_s"], label="throughput", gid="throughput",
             **{**ops.line_kwargs(), "marker": None})  # fmt: skip
    bottom.plot(rows["second"], rows["p99_ms"], label="p99 latency", gid="p99-latency",
                **{**p99.line_kwargs(), "marker": None})  # fmt: skip
    for second, text in events:
        for ax_ in (top, bottom):
            ax_.axvline(second, color="black", linestyle=":", linewidth=1)
        top.annotate(label(text), (second, 1), xycoords=("data", "axes fraction"),
                     xytext=(3, -12), textcoords="offset points", fontsize=8)  # fmt: skip
    top.set_ylabel("throughput (ops/s)")
    bottom.set_ylabel("p99 latency (ms)")
    bottom.set_xlabel("time (s)")
    for ax_ in (top, bottom):
        ax_.set_ylim(bottom=0)
        ax_.legend(loc="lower right")
    fig.suptitle(label(title))
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
    _require(data, ["t", "node", "tenant", "measured_bps", "target_bps"], "tenant_timeline")
    nodes, tenants = _categories(data["node"]), _categories(data["tenant"])
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
    _require(data, ["case", "tenant", "achieved_bps", "achieved_sd_bps", "target_bps"],
             "share_bars")  # fmt: skip
    cases, tenants = _categories(data["case"]), _categories(data["tenant"])
    offsets, width = _grouped_offsets(len(tenants))
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
