"""Which repetitions of a cell count: the one rule every consumer applies.

A repetition of a cell counts when every container of the cell completed its run phase
(`status = 'ok'`): a repetition some container failed, or did not reach, is left out of
every figure, so `contio results`, the stopping rule, the findings, the report and the
exports rest on the same repetitions. Rows are run-phase rows of the index (or of the
frame `contio.results.load` builds from it), one per (repetition, container).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

OK = "ok"


def complete(rows: Iterable[Mapping[str, Any]], members: int) -> dict[int, list[Mapping[str, Any]]]:
    """repetition number → its rows in container order, for the repetitions that count,
    ascending. `rows`: one cell's run-phase rows; `members`: its containers."""
    by_repetition: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["status"] == OK:
            by_repetition[int(row["repetition"])].append(row)
    return {
        number: sorted(found, key=lambda r: int(r["container"]))
        for number, found in sorted(by_repetition.items())
        if len(found) == members
    }


def complete_frame(frame: Any, members: int) -> Any:
    """The rows of one cell's frame (pandas) that belong to repetitions that count,
    sorted by repetition and container."""
    if len(frame) == 0:
        return frame
    numbers = list(
        complete(frame[["status", "repetition", "container"]].to_dict("records"), members)
    )
    chosen = frame[(frame["status"] == OK) & frame["repetition"].isin(numbers)]
    return chosen.sort_values(["repetition", "container"])


def counted(frame: Any, members: Mapping[str, int]) -> list[bool]:
    """Per row of a run-phase frame of several cells (`cell_key` → its containers in
    `members`): whether the row is an ok row of a repetition that counts."""
    keep: set[tuple[str, int]] = set()
    for key, rows in frame.groupby("cell_key"):
        records = rows[["status", "repetition", "container"]].to_dict("records")
        keep |= {(str(key), number) for number in complete(records, members.get(str(key), 0))}
    return [
        status == OK and (str(k), int(r)) in keep
        for k, r, status in zip(
            frame["cell_key"], frame["repetition"], frame["status"], strict=True
        )
    ]
