"""How contio's charts look: black-and-white series styles, safe labels, SVG output.

Every series is told apart by line style, marker and (for bars) hatch, never by
colour alone, so a chart printed in black and white reads the same. Only greys are
used. Figures are `matplotlib.figure.Figure` objects rendered by the Agg/SVG
backends without pyplot, so no global state is shared between charts.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec

import matplotlib
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

from contio.errors import FigureDataError

LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "x", "P", "*")
HATCHES = ("", "//", "..", "xx", "\\\\", "++", "--", "oo")
GREYS = ("#000000", "#555555", "#888888", "#333333", "#aaaaaa")

# Defaults for anything a chart does not style itself (error bar caps, for one):
# greys only, text kept as SVG text, stable ids.
RC: dict[RcKeyType, Any] = {
    "axes.prop_cycle": cycler(color=GREYS),
    "lines.color": "black",
    "patch.edgecolor": "black",
    "hatch.color": "black",
    "svg.fonttype": "none",
    "svg.hashsalt": "contio",
}
P = ParamSpec("P")

FIGURE_SIZE = (10.4, 4.8)
"""Inches: 749 × 346 pt, about the report's 1,040-px text column (`contio.report.page`),
where the page's CSS stretches every chart to the column's width; so text keeps about
its size there."""


@dataclass(frozen=True)
class SeriesStyle:
    """How one series is drawn: a unique (line style, marker) pair, a grey and a hatch."""

    linestyle: str
    marker: str
    color: str
    hatch: str

    def line_kwargs(self) -> dict[str, object]:
        return {
            "linestyle": self.linestyle,
            "marker": self.marker,
            "color": self.color,
            "markerfacecolor": "white",
            "markeredgecolor": self.color,
            "linewidth": 1.5,
            "markersize": 6,
        }

    def bar_kwargs(self) -> dict[str, object]:
        return {"hatch": self.hatch, "color": "white", "edgecolor": self.color, "linewidth": 1.0}


def series_styles(count: int) -> list[SeriesStyle]:
    """`count` styles; the (line style, marker) pairs are distinct for up to 32 series.

    The marker changes with every series; the line style shifts once per round of
    markers, so series i and i + 8 share a marker but not a line style.
    """
    return [
        SeriesStyle(
            LINE_STYLES[(i + i // len(MARKERS)) % len(LINE_STYLES)],
            MARKERS[i % len(MARKERS)],
            GREYS[i % len(GREYS)],
            HATCHES[i % len(HATCHES)],
        )
        for i in range(count)
    ]


def label(text: object) -> str:
    """A user-supplied name made safe for matplotlib: `$` would start math mode."""
    return str(text).replace("$", r"\$")


def labels(values: Iterable[object]) -> list[str]:
    return [label(v) for v in values]


def new_figure(ncols: int = 1, nrows: int = 1, sharex: bool = False) -> tuple[Figure, list]:
    """A figure with a grid of axes (returned flat, row by row) and light grid lines.

    Always the page's width (panels side by side share it); rows add height.
    """
    height = FIGURE_SIZE[1] * (1 if nrows == 1 else 0.75 * nrows)
    fig = Figure(figsize=(FIGURE_SIZE[0], height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=sharex).ravel().tolist()
    for ax in axes:
        ax.grid(True, color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
    return fig, axes


def to_svg(fig: Figure) -> str:
    """The figure as an SVG document; text stays text (searchable, small) and ids are stable."""
    buffer = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "contio"})
    return buffer.getvalue()


def black_and_white(chart: Callable[P, str]) -> Callable[P, str]:
    """Build and render `chart` under `RC`, so defaults are greys."""

    @functools.wraps(chart)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> str:
        with matplotlib.rc_context(RC):
            return chart(*args, **kwargs)

    return wrapper


ERROR_BARS = {"ecolor": "black"}


def require_columns(data: pd.DataFrame, columns: Sequence[str], chart: str) -> None:
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise FigureDataError(
            chart, f"missing column(s) {', '.join(missing)}; needs: {', '.join(columns)}"
        )
    if data.empty:
        raise FigureDataError(chart, "no rows to plot")


def categories(values: pd.Series) -> list[object]:
    """Distinct values in first-seen order (the order the experiment listed them)."""
    return list(dict.fromkeys(values.tolist()))


def grouped_offsets(groups: int) -> tuple[np.ndarray, float]:
    width = 0.8 / groups
    return (np.arange(groups) - (groups - 1) / 2) * width, width
