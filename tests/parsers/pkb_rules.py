"""PerfKitBenchmarker's documented rules for reading YCSB output, written from
their description (perfkitbenchmarker/linux_packages/ycsb_stats.py and ycsb.py;
PKB itself is not vendored), so tests can check that contio's output is read
the same way as YCSB's.

The rules:
- PKB runs `bin/ycsb load|run DB ...` and parses stderr followed by stdout.
- Before the first `[OVERALL]` line: `YCSB Client 0.…` names the client, a line
  starting `Command line:` is the command line (the last one wins), and status
  lines (`N sec: M operations; R current ops/sec`) form a time series keyed by N,
  with per-operation `[OP: K=V, K=V]` groups (the first line per N is kept).
- From `[OVERALL]` on, only lines starting `[UPPERCASE]` count; they are split as
  CSV and grouped by consecutive section; `[CLEANUP]` is dropped.
- In a group, a name that is a number (a `>` in front dropped) is a data point
  (histogram bucket in ms, time-series time in ms) kept when its value is not 0;
  any other name is a statistic, and `(us)` statistics become `(ms)` divided by
  1000 (time-series values after one are divided by 1000 too).
- The stage is `load` when the command line ends with `-load`, else `run`.
- HDR histograms: for READ and UPDATE, the file `hdrhistogram.output.path` +
  GROUP + `.hdr` must exist with a non-empty last line; HdrHistogram's
  `HistogramLogProcessor` turns it into a percentile table, and each row whose
  percentile and total count both grow gives (percentile, latency ms, count).
"""

from __future__ import annotations

import csv
import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

_STATUS = re.compile(r"(\d+) sec: \d+ operations; (\d+(\.\d+)?) current ops\/sec")
_STATUS_GROUP = re.compile(r"\[(.+?): (.+?)\]")
_SECTION = re.compile(r"^\[[A-Z]+\]")
_TABLE_ROW = re.compile(r"( *)(\d|\.)( *)")
HDR_GROUPS = ("READ", "UPDATE")


@dataclass
class Group:
    """One operation's statistics and data points."""

    statistics: dict[str, float] = field(default_factory=dict)
    data: list[tuple[int, float]] = field(default_factory=list)


@dataclass
class Parsed:
    """What PKB reads from one YCSB run."""

    client: str
    command_line: str
    stage: str
    status: dict[int, tuple[float, dict[str, dict[str, float]]]]
    groups: dict[str, Group]


def _number(text: str) -> float:
    return float(text) if "." in text or "nan" in text.lower() else int(text)


def _status_groups(line: str) -> dict[str, dict[str, float]]:
    groups = {}
    for match in _STATUS_GROUP.finditer(line):
        stats = {}
        for pair in match.group(2).split(", "):
            key, value = pair.split("=")
            stats[key] = float(value) if value else 0.0
        groups[match.group(1).lower()] = stats
    return groups


def _group(rows: list[list[str]], data_type: str) -> Group:
    group = Group()
    unit = "ms"
    for _, name, value in rows:
        name = name.strip().removeprefix(">")
        number = _number(value.strip())
        if name.isdigit():
            if number:
                if data_type == "timeseries" and unit == "us":
                    number /= 1000.0
                group.data.append((int(name), number))
        else:
            if "(us)" in name:
                name = name.replace("(us)", "(ms)")
                number /= 1000.0
                unit = "us"
            group.statistics[name] = number
    return group


def parse(stderr: str, stdout: str, data_type: str = "histogram") -> Parsed:
    """PKB's reading of one run's output."""
    lines = iter((stderr + stdout).splitlines())
    client, command_line, status = "YCSB", "unknown", {}
    for line in lines:
        line = line.strip()
        if line.startswith("[OVERALL]"):
            first = line
            break
        if line.startswith("YCSB Client 0."):
            client = line
        if line.startswith("Command line:"):
            command_line = line
        if match := _STATUS.search(line):
            status.setdefault(int(match.group(1)), (float(match.group(2)), _status_groups(line)))
    else:
        raise OSError("no [OVERALL] line")
    kept = itertools.chain([first], (line for line in lines if _SECTION.search(line)))
    groups = {}
    for section, rows in itertools.groupby(csv.reader(kept), lambda row: row[0]):
        name = section[1:-1].lower()
        if name != "cleanup":
            groups[name] = _group(list(rows), data_type)
    stage = "load" if command_line.endswith("-load") else "run"
    return Parsed(client, command_line, stage, status, groups)


def hdr_files(output_path: str) -> dict[str, Path]:
    """The HDR logs PKB collects: `output_path` + GROUP + `.hdr` with a last line."""
    found = {}
    for group in HDR_GROUPS:
        path = Path(f"{output_path}{group}.hdr")
        if path.is_file() and path.read_text().splitlines()[-1:] != [""]:
            found[group.lower()] = path
    return found


def parse_percentile_table(table: str) -> list[tuple[float, float, int]]:
    """(percentile, latency ms, count) from HistogramLogProcessor's table."""
    result = []
    last_percentile, last_total = -1.0, 0
    for row in table.split("\n"):
        if not _TABLE_ROW.match(row):
            continue
        columns = row.split()
        percentile = math.floor(float(columns[1]) * 100000) / 1000.0
        total = int(columns[2])
        if percentile > last_percentile and total > last_total:
            result.append((percentile, float(columns[0]) / 1000, total - last_total))
            last_percentile, last_total = percentile, total
    return result
