"""Parser of YCSB's final text summary, written from the format: a test helper (the tests read
YCSB 0.17's real output and the engine's text with it; contio itself reads only the engine's
JSON document and progress lines).

The summary is a series of lines `[SECTION], Name, value`: `[OVERALL]` holds the
run time and throughput, garbage-collector sections hold JVM counters, and one
section per operation type (`READ`, `UPDATE`, `READ-FAILED`, `Intended-READ`, …)
holds `Operations`, latencies in microseconds and `Return=STATUS` counts. Other
lines (banners, periodic status lines) are skipped, so the parser reads a captured
stdout, or stdout and stderr together.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field


class YcsbTextError(Exception):
    """The text holds no YCSB summary, or a summary line has a value that is not a number."""


# `[SECTION], Name, value`; the section may contain anything but a closing bracket.
_LINE = re.compile(r"^\[(?P<section>[^\]]+)\],\s*(?P<name>[^,]+?)\s*,\s*(?P<value>\S+)\s*$")

_LATENCY_NAMES = {
    "AverageLatency(us)": "mean",
    "MinLatency(us)": "min",
    "MaxLatency(us)": "max",
}
_PERCENTILE = re.compile(r"^(?P<p>\d+(?:\.\d+)?)(?:st|nd|rd|th)?PercentileLatency\(us\)$")


@dataclass
class OperationSummary:
    """One operation section of a YCSB summary. Latencies are microseconds."""

    operations: int = 0
    latency_us: dict[str, float] = field(default_factory=dict)
    """`mean`, `min`, `max`, and percentiles as `p95`, `p99`, `p99.9`."""
    returns: dict[str, int] = field(default_factory=dict)
    other: dict[str, float] = field(default_factory=dict)


@dataclass
class YcsbSummary:
    """A parsed YCSB summary."""

    runtime_ms: float
    throughput_ops_per_sec: float
    operations: dict[str, OperationSummary]
    """Operation sections by name, `Intended-` ones included, in the order they appeared."""
    sections: dict[str, dict[str, float]]
    """Every section's raw name → value, for what has no field above (GC counters)."""


def _number(text: str, line_no: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise YcsbTextError(f"line {line_no}: {text!r} is not a number") from None


def _add(op: OperationSummary, name: str, value: float) -> None:
    if name == "Operations":
        op.operations = int(value)
    elif name in _LATENCY_NAMES:
        op.latency_us[_LATENCY_NAMES[name]] = value
    elif name.startswith("Return="):
        op.returns[name.removeprefix("Return=")] = int(value)
    elif match := _PERCENTILE.match(name):
        op.latency_us[f"p{match['p']}"] = value
    else:
        op.other[name] = value


def parse_ycsb_text(text: str) -> YcsbSummary:
    """Parse YCSB's (or contio-engine's) final summary out of `text`."""
    sections: dict[str, dict[str, float]] = {}
    operations: dict[str, OperationSummary] = {}
    for line_no, line in enumerate(text.splitlines(), start=1):
        match = _LINE.match(line.strip())
        if match is None:
            continue
        section, name = match["section"], match["name"]
        value = _number(match["value"], line_no)
        sections.setdefault(section, {})[name] = value
        # Everything but the overall and JVM garbage-collector sections is an operation.
        if section != "OVERALL" and not section.startswith("TOTAL_GC"):
            _add(operations.setdefault(section, OperationSummary()), name, value)
    overall = sections.get("OVERALL")
    if not overall or "RunTime(ms)" not in overall:
        raise YcsbTextError("no `[OVERALL], RunTime(ms)` line: not a YCSB summary")
    return YcsbSummary(
        runtime_ms=overall["RunTime(ms)"],
        throughput_ops_per_sec=overall.get("Throughput(ops/sec)", math.nan),
        operations=operations,
        sections=sections,
    )
