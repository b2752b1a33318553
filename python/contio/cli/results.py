"""`contio results DIR`: the summary of a results folder, with its statistics."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from contio.cli import cli
from contio.errors import UsageError
from contio.results_index import INDEX_FILE, ResultsIndex
from contio.summary import summarize
from contio.tables import results_table


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
    done = sum(1 for c in cells if c["status"] == "done")
    skipped = sum(1 for c in cells if c["status"] == "skipped")
    failed = sum(1 for c in cells if c["status"] == "failed")
    console.print(
        f"{done} of {len(cells)} cells done, {skipped} skipped, {failed} failed · {folder}",
        highlight=False,
    )
