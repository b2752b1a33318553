"""t-test results as an HTML table in the layout of Table 1 of paper 002
(docs/papers.md).

Columns: the experiment's kind (row groups such as "HDD, 1 container"), the
operation, the comparison "A - B", the test (paired over n pairs, or Welch over
n_a and n_b repetitions), mean difference, standard deviation, t and significance.
Every cell is escaped: level names come from user input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from contio.stats.ttest import TTestResult

HEADER = ("experiment", "operation", "comparison", "test", "mean", "std. deviation", "t", "sig.")


def test_label(result: TTestResult) -> str:
    """ "paired, n = 5" or "Welch, n = 5 / 4": which test, over how many values."""
    if result.kind == "paired":
        return f"paired, n = {result.n_a}"
    return f"Welch, n = {result.n_a} / {result.n_b}"


@dataclass(frozen=True)
class TTestRow:
    """One line of the table: where the test comes from, and its result."""

    experiment: str
    operation: str
    result: TTestResult


def t_test_table(rows: Sequence[TTestRow], caption: str = "t-tests", digits: int = 3) -> str:
    """An HTML <table>; consecutive rows of one experiment share its cell (rowspan)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in HEADER)
    body = []
    for i, row in enumerate(rows):
        cells = row.result.table_row(digits)
        first_of_group = i == 0 or rows[i - 1].experiment != row.experiment
        span = 0
        while (
            first_of_group and i + span < len(rows) and rows[i + span].experiment == row.experiment
        ):
            span += 1
        lead = (
            f'<th scope="rowgroup" rowspan="{span}">{escape(row.experiment)}</th>' if span else ""
        )
        values = (row.operation, cells["comparison"], test_label(row.result), cells["mean"],
                  cells["std_deviation"], cells["t"], cells["sig"])  # fmt: skip
        classes = ' class="significant"' if row.result.significant() else ""
        tds = "".join(f"<td>{escape(v)}</td>" for v in values)
        body.append(f"<tr{classes}>{lead}{tds}</tr>")
    return (
        f'<table class="t-tests"><caption>{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
