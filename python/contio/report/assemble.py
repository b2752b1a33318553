"""Assemble the report of a results folder: read it, compute, draw, write one HTML file.

Sections appear only when the folder has data for them: a chart against threads
needs two thread levels, a scaling chart two container counts, t-tests two backends,
mixes a standalone to compare with, isolation charts block I/O groups.
"""

from __future__ import annotations

import math
from pathlib import Path

from contio.output_files import check_output, replace_text
from contio.report.backend_sections import backend_tests_section, throughput_section
from contio.report.compare import compare, comparison_section
from contio.report.conclusions import headline, headlines, warnings
from contio.report.detail_sections import (
    isolation_section,
    time_series_section,
    validity_section,
)
from contio.report.experiment import Experiment
from contio.report.findings_section import findings_sections
from contio.report.middleware_sections import middleware_section
from contio.report.page import Section, render, table
from contio.report.placement_section import placement_sections
from contio.report.scaling_sections import (
    latency_section,
    mix_results,
    mix_section,
    scaling_results,
    scaling_section,
)
from contio.report.summary_section import summary_section

REPORT_FILE = "report.html"


def _number(value: float, digits: int = 0) -> str:
    return "–" if math.isnan(value) else f"{value:,.{digits}f}"


def cells_section(exp: Experiment) -> Section:
    """Every cell's statistics (as `contio results` prints them)."""
    section = Section("cells", "Cells")
    if exp.cells.empty:
        return section
    factors = exp.varying() or [f for f in exp.factors if f != "runtime"]
    header = [*(f.removeprefix("properties.") for f in factors), "status", "ops/s mean",
              "95% CI", "reps", "p95 ms", "p99 ms"]  # fmt: skip
    rows = []
    for _, c in exp.cells.iterrows():
        ci = "–" if math.isnan(c["half_width"]) else f"± {_number(c['half_width'])}"
        rows.append(
            [*(c[f] for f in factors), c["status"], _number(c["mean"]), ci, c["repetitions"],
             _number(c["p95_ms"], 3), _number(c["p99_ms"], 3)]
        )  # fmt: skip
    n = len(factors)
    section.blocks.append(
        table(
            header,
            rows,
            "ops/s: per repetition the sum over containers, warm-up left out",
            numeric=(n + 1, n + 2, n + 3, n + 4, n + 5),
            css_class="cells",
        )
    )
    return section


def build_report(folder: Path, compare_with: Path | None = None) -> str:
    """The HTML report of `folder`; with `compare_with`, a section comparing against it."""
    exp = Experiment.read(folder)
    scaling = scaling_results(exp)
    mixes = mix_results(exp)
    sections = placement_sections(folder) + findings_sections(folder)
    sections.append(
        summary_section(exp, headlines(exp, scaling, mixes), warnings(exp), headline(exp))
    )
    if compare_with is not None:
        sections.append(comparison_section(compare(Experiment.read(compare_with), exp)))
    sections += [
        throughput_section(exp),
        scaling_section(exp, scaling),
        latency_section(exp, scaling),
        mix_section(exp, mixes),
        isolation_section(exp),
        middleware_section(exp),
        backend_tests_section(exp),
        cells_section(exp),
        validity_section(exp),
        time_series_section(exp),
    ]
    subtitle = f"contio report of {exp.folder.name}"
    return render(f"contio: {exp.name}", subtitle, sections)


def write_report(
    folder: Path, output: Path | None = None, compare_with: Path | None = None
) -> Path:
    """Write the report (default `<folder>/report.html`, replaced: it is derived data)."""
    path = output or Path(folder) / REPORT_FILE
    check_output(path)  # before the report is built: that takes a while
    html = build_report(folder, compare_with)
    return replace_text(path, html)
