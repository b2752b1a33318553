"""`contio results DIR`: the summary of a results folder, with its statistics."""

from __future__ import annotations

import json
from pathlib import Path

import click
from rich.console import Console

from contio.cli.root import cli
from contio.cli.tables import (
    comparison_table,
    findings_table,
    headline,
    mix_table,
    results_table,
)
from contio.errors import UsageError
from contio.findings.caveats import RunChecks
from contio.findings.document import current_findings
from contio.findings.validity_check import failed_summary
from contio.results.index import INDEX_FILE, ResultsIndex
from contio.results.summary import summarize
from contio.stats.backend_comparison import Analysis


def folder_analysis(folder: Path) -> Analysis:
    """The `analysis` section of the spec the folder was run with (defaults without one)."""
    try:
        return Analysis.of_spec(json.loads((folder / "spec.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, AttributeError):
        return Analysis()


@cli.command()
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
def results(folder: Path) -> None:
    """Print the per-cell statistics of a results folder (complete or interrupted)."""
    if not (folder / INDEX_FILE).is_file():
        raise UsageError(f"{folder} has no {INDEX_FILE}: not a contio results folder")
    index = ResultsIndex.open(folder)
    try:
        summaries = summarize(index)
        cells = index.cells()
    finally:
        index.close()
    console = Console() if Console().is_terminal else Console(width=160)
    console.print(results_table(summaries))
    comparison = comparison_table(summaries, folder_analysis(folder))
    if comparison is not None:
        console.print(comparison)
    mixes = mix_table(summaries)
    if mixes is not None:
        console.print(mixes)
    checks = RunChecks.of_folder(folder)
    found = headline(summaries, folder_analysis(folder), checks)
    if found is not None:
        console.print(found, highlight=False, markup=False, soft_wrap=True)
    verdicts = findings_table(current_findings(folder))  # findings.json: written if stale
    if verdicts is not None:
        console.print(verdicts)
    invalid = failed_summary(list(checks.checks))
    if invalid is not None:
        console.print(invalid, highlight=False, markup=False, soft_wrap=True)
    done = sum(1 for c in cells if c["status"] == "done")
    skipped = sum(1 for c in cells if c["status"] == "skipped")
    failed = sum(1 for c in cells if c["status"] == "failed")
    console.print(
        f"{done} of {len(cells)} cells done, {skipped} skipped"
        + (f", {failed} failed" if failed else "")
        + f" · {folder}",
        highlight=False,
    )
