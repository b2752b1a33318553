"""`contio report DIR`, `contio compare DIR_A DIR_B`, `contio export DIR --format F`."""

from __future__ import annotations

from pathlib import Path

import click

from contio.cli.root import cli
from contio.errors import UsageError
from contio.output_files import check_output
from contio.results.index import INDEX_FILE

FOLDER = click.Path(file_okay=False, exists=True, path_type=Path)


def _results_folder(folder: Path) -> Path:
    if not (folder / INDEX_FILE).is_file():
        raise UsageError(f"{folder} has no {INDEX_FILE}: not a contio results folder")
    return folder


@cli.command()
@click.argument("folder", type=FOLDER)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the HTML file (default: FOLDER/report.html).",
)  # fmt: skip
@click.option(
    "--compare-with", type=FOLDER,
    help="Another results folder: adds a section comparing the common cells with it.",
)  # fmt: skip
def report(folder: Path, output: Path | None, compare_with: Path | None) -> None:
    """Write the self-contained HTML report of a results folder."""
    # Lazy: the report stack (pandas, matplotlib) would slow every `contio` start.
    from contio.report.assemble import write_report

    _results_folder(folder)
    if compare_with is not None:
        _results_folder(compare_with)
    click.echo(f"report: {write_report(folder, output, compare_with)}")


@cli.command(name="compare")
@click.argument("folder_a", type=FOLDER)
@click.argument("folder_b", type=FOLDER)
@click.option(
    "--html", "html_output", type=click.Path(dir_okay=False, path_type=Path),
    help="Also write B's report with the comparison section to this file.",
)  # fmt: skip
def compare_command(folder_a: Path, folder_b: Path, html_output: Path | None) -> None:
    """Compare the common cells of two experiments: B against A, with 95% CI and p."""
    # Lazy: the report stack (pandas, matplotlib) would slow every `contio` start.
    from contio.report.assemble import write_report
    from contio.report.compare import compare, comparison_text
    from contio.report.experiment import Experiment

    if html_output is not None:
        check_output(html_output)  # before the comparison is printed
    a = Experiment.read(_results_folder(folder_a))
    b = Experiment.read(_results_folder(folder_b))
    click.echo(comparison_text(compare(a, b)), nl=False)
    if html_output is not None:
        click.echo(f"report: {write_report(folder_b, html_output, folder_a)}")


@cli.command(name="export")
@click.argument("folder", type=FOLDER)
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "parquet", "json"]), default="csv",
    show_default=True, help="File format of the export.",
)  # fmt: skip
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write it (default: FOLDER/runs.<format>).",
)  # fmt: skip
def export_command(folder: Path, fmt: str, output: Path | None) -> None:
    """Export the run phases (one row per cell × repetition × container)."""
    # Lazy: the report stack (pandas, matplotlib) would slow every `contio` start.
    from contio.report.export import export

    _results_folder(folder)
    click.echo(f"export: {export(folder, fmt, output)}")
