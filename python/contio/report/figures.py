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
- `read_write_bars` — reads and writes per storage with error bars (paper 002, Fig. 1–2);
- `time_series` — ops/s and p99 latency over time with events marked;

Paper 004's charts of bandwidth shares are in `share_figures`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

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
    require_columns(
        data, ["backend", x_column, "mean", "ci_low", "ci_high"], "throughput_vs_threads"
    )
    fig, (ax,) = new_figure()
    backends = categories(data["backend"])
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
    require_columns(data, columns, "scaling")
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
    require_columns(data, ["series", "containers", "latency_ms"], "latency_vs_containers")
    fig, (ax,) = new_figure()
    names = categories(data["series"])
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


@black_and_white
def mix_bars(data: pd.DataFrame, jain: dict[str, float] | None = None, title: str = "") -> str:
    """Each application's throughput in each mix as a percentage of its standalone throughput.

    Columns: `mix`, `application`, `mean`, `ci_low`, `ci_high`, `standalone_mean` (any
    unit, the same within an application; `ci_high` NaN: no upper bound, no error bar
    above). Bars are labelled with the degradation; `jain` maps a mix to its fairness
    index, shown under the mix's name.
    """
    columns = ["mix", "application", "mean", "ci_low", "ci_high", "standalone_mean"]
    require_columns(data, columns, "mix_bars")
    mixes, apps = categories(data["mix"]), categories(data["application"])
    offsets, width = grouped_offsets(len(apps))
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


@black_and_white
def read_write_bars(data: pd.DataFrame, unit: str = "operations/s", title: str = "") -> str:
    """Mean reads and writes per storage option with ± one standard deviation (paper 002).

    Columns: `storage`, `operation` (e.g. read, write), `mean`, `std` (in `unit`).
    """
    require_columns(data, ["storage", "operation", "mean", "std"], "read_write_bars")
    operations, storages = categories(data["operation"]), categories(data["storage"])
    offsets, width = grouped_offsets(len(storages))
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
    require_columns(data, ["second", "ops_per_s", "p99_ms"], "time_series")
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
