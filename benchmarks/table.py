"""Printing a report as a table: contio, its peer, the ratio, the goal and PASS/MISS."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from benchmarks.report import Report, Row


def format_value(value: float | None, unit: str) -> str:
    """A number with a readable magnitude: 3.92 M ops/s, 48.1 MiB."""
    if value is None:
        return "—"
    if unit in ("ops/s", "IOPS", "reads/s", "writes/s", "fsyncs/s"):
        if value >= 1e6:
            return f"{value / 1e6:.2f} M"
        if value >= 1e3:
            return f"{value / 1e3:.1f} k"
        return f"{value:.0f}"
    if unit == "×":
        return f"{value:.2f}×"
    return f"{value:.1f}"


def _ratio(row: Row) -> str:
    """The ratio, with its interval over the rounds when there is one."""
    if row.ratio is None:
        return "—"
    if row.ratio_interval is None:
        return f"{row.ratio:.2f}"
    low, high = row.ratio_interval
    return f"{row.ratio:.2f} [{low:.2f}, {high:.2f}]"


def _verdict(row: Row) -> str:
    if row.passed is None:
        return "" if not row.goal else "[yellow]n/a[/yellow]"
    return "[green]PASS[/green]" if row.passed else "[bold red]MISS[/bold red]"


def print_report(report: Report, console: Console) -> None:
    """Prints the report's table, or why it was skipped, and its notes."""
    if report.skipped:
        console.print(f"[bold]{report.title}[/bold]: [yellow]skipped[/yellow] — {report.skipped}")
        for note in report.notes:
            console.print(f"  {note}")
        return
    table = Table(title=report.title, title_justify="left")
    for column in ("case", "metric", "contio", report.peer, "ratio", "goal", "result"):
        table.add_column(
            column, justify="left" if column in ("case", "metric", "goal") else "right"
        )
    for row in report.rows:
        table.add_row(
            row.case,
            row.metric
            if row.unit in row.metric or row.unit == "×"
            else f"{row.metric} ({row.unit})",
            format_value(row.contio, row.unit),
            format_value(row.peer, row.unit),
            _ratio(row),
            row.goal,
            _verdict(row),
        )
    console.print(table)
    if report.broken:
        console.print(f"  [bold red]set-up broken:[/bold red] {report.broken}", highlight=False)
    for note in report.notes:
        console.print(f"  {note}", highlight=False)
