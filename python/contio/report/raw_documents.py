"""What the report reads from the engine's raw result documents beyond the index.

- reads/s and writes/s per run phase (002 reports reads and writes apart), from
  `operations_by_type` counts over the phase's runtime;
- a cell's per-second time series (ops/s summed over its containers, p99 latency);
- events (`events.jsonl` in the results folder: `{"at": UTC time, "label": …}` lines,
  written by whatever caused them, for example a stopped node) placed on that series.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from contio.engine_result import read_result
from contio.errors import ContioError

READ_TYPES = ("READ", "SCAN")
WRITE_TYPES = ("UPDATE", "INSERT", "DELETE", "WRITE")
EVENTS_FILE = "events.jsonl"
MIN_PARTIAL_SECOND = 0.25


def operation_rates(folder: Path, runs: pd.DataFrame) -> pd.DataFrame:
    """`runs` with `reads_per_sec` and `writes_per_sec` added (NaN where a document is gone).

    Rates are whole-phase counts over the runtime (warm-up included). A
    read-modify-write counts under READ and UPDATE, as the engine times it.
    """
    reads, writes = [], []
    for raw in runs["raw_json"]:
        try:
            doc = read_result(folder / raw)
        except ContioError:
            reads.append(float("nan"))
            writes.append(float("nan"))
            continue
        seconds = doc.runtime_ms / 1000 or float("nan")
        by_type = doc.operations_by_type
        reads.append(sum(by_type[t].count for t in READ_TYPES if t in by_type) / seconds)
        writes.append(sum(by_type[t].count for t in WRITE_TYPES if t in by_type) / seconds)
    return runs.assign(reads_per_sec=reads, writes_per_sec=writes)


def cell_time_series(folder: Path, phases: pd.DataFrame) -> pd.DataFrame:
    """Per second of one repetition of a cell: `second`, `ops_per_s`, `p99_ms`.

    `phases` are that repetition's run rows (one per container). ops/s is summed over
    containers (a last partial second scaled to its length, dropped under a quarter
    second); p99 is the highest of the operation types' and containers' p99 in
    that second (the slowest thing a client saw).
    """
    ops: dict[int, float] = {}
    p99: dict[int, float] = {}
    for raw in phases["raw_json"]:
        try:
            doc = read_result(folder / raw)
        except ContioError:
            continue
        length_s = doc.runtime_ms / 1000
        for entry in doc.timeseries:
            second = int(entry.get("t", 0))
            # The last entry may cover part of a second: scale it to a rate, and leave
            # out a sliver too short to say anything.
            covered = min(1.0, length_s - (second - 1))
            if covered < MIN_PARTIAL_SECOND:
                continue
            ops[second] = ops.get(second, 0.0) + float(entry.get("ops", 0)) / covered
            worst = [float(v.get("p99", 0)) for v in (entry.get("by_type") or {}).values()]
            p99[second] = max([p99.get(second, 0.0), *worst])
    seconds = sorted(ops)
    return pd.DataFrame(
        {
            "second": seconds,
            "ops_per_s": [ops[s] for s in seconds],
            "p99_ms": [p99.get(s, 0.0) / 1000 for s in seconds],
        }
    )


def _utc(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None


def read_events(folder: Path) -> list[tuple[datetime, str]]:
    """The folder's events (time, label); lines that do not parse are left out."""
    path = folder / EVENTS_FILE
    if not path.is_file():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            item: Any = json.loads(line)
        except json.JSONDecodeError:
            continue
        when = _utc(item.get("at")) if isinstance(item, dict) else None
        if when is not None:
            found.append((when, str(item.get("label", "event"))))
    return found


def events_during(
    events: list[tuple[datetime, str]], phases: pd.DataFrame, length_s: float
) -> list[tuple[float, str]]:
    """Events inside one repetition's run, as (seconds since its start, label)."""
    starts = [s for s in (_utc(t) for t in phases["started_at"]) if s is not None]
    if not starts:
        return []
    start = min(starts)
    placed = []
    for when, text in events:
        second = (when - start).total_seconds()
        if 0 <= second <= length_s:
            placed.append((second, text))
    return placed
