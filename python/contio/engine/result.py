"""The engine's result document (`contio.engine.result/1`), as typed Python objects.

The layout is specified in `docs/engine-interface.md`. Fields this version does not
know are ignored, so a newer engine that adds fields still reads; a different major
schema is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contio.errors import EngineOutputError
from contio.versioned_json import first_problem

SCHEMA = "contio.engine.result/1"


class _Document(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class LatencySummary(_Document):
    """Latency of one operation type, in microseconds."""

    min: float
    mean: float
    max: float
    p50: float
    p95: float
    p99: float
    p999: float | None = None


class OperationStats(_Document):
    """One operation type (`READ`, `UPDATE`, `READ-FAILED`, ...) of a phase."""

    count: int
    returns: dict[str, int] = {}
    latency_us: LatencySummary
    histogram: str | None = None
    """HdrHistogram V2 compressed, base64, microseconds."""


class EngineResult(_Document):
    """One phase of the engine: what ran, how it went, and what it measured."""

    schema_id: str = Field(alias="schema")
    engine_version: str
    kind: str
    phase: str
    target: str
    target_description: dict[str, Any] | None = None
    properties: dict[str, str] = {}
    threads: int
    target_ops_per_sec: float = 0
    status: Literal["ok", "interrupted", "failed"]
    error: str | None = None
    started_at: str
    runtime_ms: float
    operations: int
    throughput_ops_per_sec: float
    operations_by_type: dict[str, OperationStats] = {}
    intended_by_type: dict[str, OperationStats] | None = None
    timeseries: list[dict[str, Any]] = []
    io: dict[str, Any] | None = None
    """File workloads (`kind` sysbench/fio): bytes, rates, files, regions, verification."""
    tpcc: dict[str, Any] | None = None
    """`kind` tpcc: tpmC, total tpm, scale, retries and failures per transaction."""
    cstress: dict[str, Any] | None = None
    """`kind` cstress: op, partition and row rates, totals and latencies (ms), per type."""

    @property
    def failed_operations(self) -> int:
        """Operations timed under a `*-FAILED` name."""
        return sum(
            s.count for name, s in self.operations_by_type.items() if name.endswith("-FAILED")
        )


def parse_result(text: str, source: str) -> EngineResult:
    """Parse a result document; `source` names it in errors."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineOutputError(f"{source}: not JSON ({exc})") from None
    schema = data.get("schema") if isinstance(data, dict) else None
    if schema != SCHEMA:
        raise EngineOutputError(f"{source}: schema {schema!r} is not {SCHEMA!r}")
    try:
        return EngineResult.model_validate(data)
    except ValidationError as exc:
        raise EngineOutputError(f"{source}: {first_problem(exc)}") from None


def read_result(path: Path) -> EngineResult:
    """Read a result document the engine wrote with `-json PATH`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EngineOutputError(f"the engine wrote no result document at {path}") from None
    return parse_result(text, str(path))
