"""The report as one self-contained HTML page: inline CSS, inline SVG, no script, no fonts.

Everything that comes from user input (names, descriptions, the spec's text, reasons)
goes through `html.escape`; charts are matplotlib SVG, whose text matplotlib escapes
for XML. The page has no `<script>` at all, so nothing in it can run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px;
       padding: 1em 2em; color: #111; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: .2em; } h2 { border-bottom: 1px solid #999;
       padding-bottom: .2em; margin-top: 2em; } h3 { font-size: 1.05em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .92em; }
th, td { border: 1px solid #bbb; padding: .25em .6em; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: .3em 0; }
tr.significant td { font-weight: 600; }
figure.chart { margin: 1em 0 2em; } figure.chart svg { width: 100%; height: auto; }
figcaption { font-size: .9em; color: #333; margin-top: .3em; }
ul.warnings li { margin: .2em 0; } ul.warnings { border-left: 4px solid #444;
       padding-left: 1.6em; background: #f3f3f3; }
details { margin: .4em 0; } summary { cursor: pointer; }
pre { background: #f6f6f6; padding: .8em; overflow-x: auto; font-size: .85em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
nav ul { columns: 2; } .note { color: #444; font-size: .92em; }
p.headline { font-size: 1.1em; font-weight: 600; border-left: 4px solid #111; padding: .3em .8em; }
"""

_XML_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.DOTALL)


@dataclass
class Section:
    """One part of the report: an id (anchor and test hook), a title, HTML blocks."""

    id: str
    title: str
    blocks: list[str] = field(default_factory=list)
    intro: str = ""
    """Plain text (escaped when rendered)."""

    def html(self) -> str:
        intro = f'<p class="note">{escape(self.intro)}</p>' if self.intro else ""
        return (
            f'<section id="{escape(self.id)}"><h2>{escape(self.title)}</h2>{intro}'
            + "".join(self.blocks)
            + "</section>"
        )


def figure(svg: str, chart: str, caption: str) -> str:
    """An inline SVG chart with a caption; `chart` names its kind (`data-chart`)."""
    body = _XML_PROLOGUE.sub("", svg, count=1)
    return (
        f'<figure class="chart" data-chart="{escape(chart)}">{body}'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def details(summary: str, inner: str) -> str:
    """Content shown on demand."""
    return f"<details><summary>{escape(summary)}</summary>{inner}</details>"


def table(
    header: Sequence[str],
    rows: Sequence[Sequence[object]],
    caption: str = "",
    numeric: Sequence[int] = (),
    css_class: str = "",
) -> str:
    """A plain escaped table; columns in `numeric` are right-aligned."""
    cls = f' class="{escape(css_class)}"' if css_class else ""
    head = "".join(
        f"<th{' class=num' if i in numeric else ''}>{escape(str(h))}</th>"
        for i, h in enumerate(header)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=num' if i in numeric else ''}>{escape(str(v))}</td>"
            for i, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table{cls}>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def bullet_list(items: Sequence[str], css_class: str) -> str:
    return (
        f'<ul class="{escape(css_class)}">'
        + "".join(f"<li>{escape(i)}</li>" for i in items)
        + "</ul>"
    )


def render(title: str, subtitle: str, sections: Sequence[Section]) -> str:
    """The whole page; an index of the sections comes first."""
    shown = [s for s in sections if s.blocks]
    nav = "".join(f'<li><a href="#{escape(s.id)}">{escape(s.title)}</a></li>' for s in shown)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No network: forbid every fetch the page could make, inline styles only.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f'<h1>{escape(title)}</h1><p class="note">{escape(subtitle)}</p>'
        f"<nav><ul>{nav}</ul></nav>" + "".join(s.html() for s in shown) + "</body></html>\n"
    )
