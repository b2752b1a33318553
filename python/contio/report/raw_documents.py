"""What the report reads from the engine's raw result documents beyond the index.

- reads/s and writes/s per run phase (paper 002, docs/papers.md, reports reads and writes
  apart), from the
  per-second counts after the warm-up (as ops/s);
- a cell's per-second time series (ops/s summed over its containers, p99 latency);
- the fault events the runner recorded for a repetition (`events.json` beside its
  engine documents: a node stopped, restarted, healed), placed on that series.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from contio.engine.result import read_result
from contio.errors import ContioError
from contio.results.folder import EVENTS_JSON
from contio.results.steady_state import steady_window, type_count

READ_TYPES = ("READ", "SCAN")
WRITE_TYPES = ("UPDATE", "INSERT", "DELETE", "WRITE")
MIN_PARTIAL_SECOND = 0.25


def operation_rates(folder: Path, runs: pd.DataFrame) -> pd.DataFrame:
    """`runs` with `reads_per_sec` and `writes_per_sec` added (NaN where a document is gone).

    Rates leave out the warm-up the phase's ops/s left out (`warmup_excluded_s`):
    per-second counts after it over the time after it. A read-modify-write counts
    under READ and UPDATE, as the engine times it.
    """
    reads, writes = [], []
    skipped = runs["warmup_excluded_s"] if "warmup_excluded_s" in runs else [0.0] * len(runs)
    for raw, warmup in zip(runs["raw_json"], skipped, strict=True):
        try:
            doc = read_result(folder / raw)
        except ContioError:
            reads.append(float("nan"))
            writes.append(float("nan"))
            continue
        window = steady_window(doc, float(warmup or 0.0))
        if window is None:
            seconds = doc.runtime_ms / 1000 or float("nan")
            by_type = doc.operations_by_type
            reads.append(sum(by_type[t].count for t in READ_TYPES if t in by_type) / seconds)
            writes.append(sum(by_type[t].count for t in WRITE_TYPES if t in by_type) / seconds)
        else:
            reads.append(type_count(window.entries, READ_TYPES) / window.seconds)
            writes.append(type_count(window.entries, WRITE_TYPES) / window.seconds)
    return runs.assign(reads_per_sec=reads, writes_per_sec=writes)


def cell_time_series(folder: Path, phases: pd.DataFrame) -> pd.DataFrame:
    """Per second of one repetition of a cell: `second`, `ops_per_s`, `p99_ms`.

    `phases` are that repetition's run rows (one per container). ops/s is summed over
    containers (a last partial second scaled to its length, dropped under a quarter
    second); p99 is the highest of the operation types' and containers' p99 in
    that second (the slowest thing a client saw), NaN in a second in which no
    operation completed (a node outage): there is no latency to draw, and a chart
    leaves a gap rather than a fall to 0.
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
            worst = [
                float(v.get("p99", 0))
                for v in (entry.get("by_type") or {}).values()
                if int(v.get("count", 0)) > 0
            ]
            if worst:
                p99[second] = max([p99.get(second, 0.0), *worst])
    seconds = sorted(ops)
    return pd.DataFrame(
        {
            "second": seconds,
            "ops_per_s": [ops[s] for s in seconds],
            "p99_ms": [p99[s] / 1000 if s in p99 else math.nan for s in seconds],
        }
    )


def _utc(text: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None


EVENT_MOMENTS = (("stopped_at", "stopped"), ("restarted_at", "restarted"), ("healed_at", "healed"))


def _read_records(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return []
    return [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []


def repetition_events(folder: Path, phases: pd.DataFrame) -> list[tuple[float, str]]:
    """The fault events of one repetition's run, as (seconds since the run started, label).

    The runner writes them beside the run's engine documents
    (`raw/<cell>/s<session>-rep<r>/events.json`, one record per node-stop event of
    `contio.gluster.faults`: seconds since the schedule started for the stop, the
    restart and the end of the heal). The schedule starts just before the engines; each
    engine's clock starts once its target is open, so the records are shifted by the
    gap between the schedule's `schedule_started_at` and the earliest engine
    `started_at` (older records without it are taken as starting with the engines).
    Every moment that happened is returned, also those after the run ended (a restart
    or heal that finished later), in time order.
    """
    directories = {(folder / raw).parent for raw in phases["raw_json"]}
    starts = [s for s in (_utc(t) for t in phases["started_at"]) if s is not None]
    placed = []
    for directory in sorted(directories):
        for record in _read_records(directory / EVENTS_JSON):
            scheduled = _utc(record.get("schedule_started_at"))
            shift = (scheduled - min(starts)).total_seconds() if scheduled and starts else 0.0
            node = record.get("node", "?")
            for key, what in EVENT_MOMENTS:
                value = record.get(key)
                if not isinstance(value, (int, float)):
                    continue  # did not happen (cancelled, failed)
                placed.append((float(value) + shift, f"node {node} {what}"))
    return sorted(placed)
