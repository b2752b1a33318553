"""The records every benchmark produces: raw samples and the comparison rows built on them."""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from scipy import stats


@dataclass
class Sample:
    """One measured number from one child run, with everything needed to reproduce it."""

    tool: str
    """Who was measured: "contio", "ycsb", "fio", "sysbench"."""
    case: str
    """What was measured, e.g. "workloada threads=8"."""
    metric: str
    """e.g. "ops/s", "iops", "peak_rss"."""
    value: float
    unit: str
    metadata: dict[str, Any] = field(default_factory=dict)
    """argv, wall time, load average before the run, and the like."""
    timestamp: float = field(default_factory=time.time)


@dataclass
class Row:
    """One line of a comparison table: contio against its peer on one case and metric."""

    case: str
    metric: str
    unit: str
    contio: float | None
    peer: float | None = None
    goal: str = ""
    """The goal in words ("ratio ≥ 3.0"); empty for an informational row."""
    passed: bool | None = None
    """None when there is no goal or a side was not measured."""
    ratio_interval: tuple[float, float] | None = None
    """95 % interval of contio / peer over paired rounds (`paired_ratio_interval`)."""

    @property
    def ratio(self) -> float | None:
        """contio / peer, when both were measured."""
        if self.contio is None or not self.peer:
            return None
        return self.contio / self.peer


@dataclass
class Report:
    """What one benchmark returns: its table, its raw samples and notes for the reader."""

    name: str
    title: str
    peer: str
    rows: list[Row] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None
    """Why the benchmark did not run (a feature not landed yet); None when it ran."""
    broken: str | None = None
    """A set-up error met part-way; the rows measured before it are kept. Exit code 2."""
    context: dict[str, Any] = field(default_factory=dict)
    """What the measurements ran on (e.g. each storage backend's description), for the JSON."""

    @property
    def missed(self) -> list[Row]:
        """Rows whose goal was judged and not met."""
        return [row for row in self.rows if row.passed is False]

    def to_json(self) -> dict[str, Any]:
        """A plain dictionary for the results file."""
        data = asdict(self)
        for row, out in zip(self.rows, data["rows"], strict=True):
            out["ratio"] = row.ratio
        return data


def judge_ratio(contio: float | None, peer: float | None, minimum: float) -> bool | None:
    """Whether contio / peer ≥ minimum; None when a side is missing."""
    if contio is None or not peer:
        return None
    return contio / peer >= minimum


def median_or_none(values: list[float] | None) -> float | None:
    """The median of repeated measurements; None when nothing was measured."""
    return statistics.median(values) if values else None


def judge_band(contio: float | None, peer: float | None, low: float, high: float) -> bool | None:
    """Whether low ≤ contio / peer ≤ high; None when a side is missing."""
    if contio is None or not peer:
        return None
    return low <= contio / peer <= high


def paired_ratio_interval(
    contio: list[float] | None, peer: list[float] | None
) -> tuple[float, float] | None:
    """The 95 % interval of contio / peer from rounds measured in pairs (round i of each
    tool back to back): Student t over the rounds' log ratios, so a drift of the machine
    between rounds widens it instead of biasing it. None below 2 pairs."""
    pairs = [(c, p) for c, p in zip(contio or [], peer or [], strict=False) if c > 0 and p > 0]
    if len(pairs) < 2:
        return None
    logs = [math.log(c / p) for c, p in pairs]
    mean, spread = statistics.fmean(logs), statistics.stdev(logs) / math.sqrt(len(logs))
    half = float(stats.t.ppf(0.975, len(logs) - 1)) * spread
    return math.exp(mean - half), math.exp(mean + half)
