"""Reading the peers' outputs: YCSB's and go-ycsb's text summaries, go-tpc's, sysbench
fileio's text, fio's JSON.

contio's own numbers always come from its JSON document (docs/engine-interface.md);
these parsers exist only because the peers print text. Tested against captured real
outputs in tests/data/bench/.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from benchmarks.errors import SetupError

_YCSB_LINE = re.compile(r"^\[(?P<section>[^\]]+)\], (?P<name>[^,]+), (?P<value>\S+)\s*$")
_SYSBENCH_RATE = re.compile(r"^\s*(?P<name>reads/s|writes/s|fsyncs/s):\s+(?P<value>[\d.]+)\s*$")


def parse_ycsb_summary(text: str) -> dict[tuple[str, str], float]:
    """The `[SECTION], Name, value` lines of YCSB's final summary, keyed by (section, name)."""
    summary: dict[tuple[str, str], float] = {}
    for line in text.splitlines():
        match = _YCSB_LINE.match(line)
        if not match:
            continue
        try:
            summary[(match["section"], match["name"])] = float(match["value"])
        except ValueError:
            continue
    return summary


def ycsb_throughput(text: str) -> float:
    """`[OVERALL], Throughput(ops/sec)` from YCSB's output; SetupError if absent."""
    summary = parse_ycsb_summary(text)
    try:
        return summary[("OVERALL", "Throughput(ops/sec)")]
    except KeyError:
        raise SetupError("YCSB printed no [OVERALL], Throughput(ops/sec) line") from None


@dataclass
class SysbenchRates:
    """The `File operations` block of `sysbench fileio run`."""

    reads_per_sec: float
    writes_per_sec: float
    fsyncs_per_sec: float


def parse_sysbench_fileio(text: str) -> SysbenchRates:
    """reads/s, writes/s and fsyncs/s from sysbench fileio's run output."""
    rates: dict[str, float] = {}
    for line in text.splitlines():
        match = _SYSBENCH_RATE.match(line)
        if match:
            rates[match["name"]] = float(match["value"])
    missing = {"reads/s", "writes/s", "fsyncs/s"} - rates.keys()
    if missing:
        raise SetupError(f"sysbench output lacks {', '.join(sorted(missing))}")
    return SysbenchRates(rates["reads/s"], rates["writes/s"], rates["fsyncs/s"])


def fio_read_iops(text: str) -> float:
    """Total read IOPS over all jobs of a `fio --output-format=json` run."""
    try:
        document = json.loads(text[text.index("{") :])
        return float(sum(job["read"]["iops"] for job in document["jobs"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise SetupError(f"cannot read fio's JSON output: {exc}") from exc


def fio_read_total_ios(text: str) -> int:
    """Read I/Os completed over all jobs of a `fio --output-format=json` run (ramp excluded)."""
    try:
        document = json.loads(text[text.index("{") :])
        return int(sum(job["read"]["total_ios"] for job in document["jobs"]))
    except (ValueError, KeyError, TypeError) as exc:
        raise SetupError(f"cannot read fio's JSON output: {exc}") from exc


@dataclass
class FioRates:
    """One direction (read or write) of a `fio --output-format=json` run, over all jobs."""

    iops: float
    bytes_per_sec: float
    total_ios: int
    """I/Os completed after the ramp."""


def fio_rates(text: str, direction: str) -> FioRates:
    """IOPS, bytes/s and I/Os of `direction` ("read" or "write"), summed over the jobs."""
    try:
        document = json.loads(text[text.index("{") :])
        jobs = [job[direction] for job in document["jobs"]]
        return FioRates(
            iops=float(sum(j["iops"] for j in jobs)),
            bytes_per_sec=float(sum(j["bw_bytes"] for j in jobs)),
            total_ios=int(sum(j["total_ios"] for j in jobs)),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise SetupError(f"cannot read fio's JSON output: {exc}") from exc


_GO_YCSB_LINE = re.compile(r"^(?P<op>[A-Z][A-Z_-]*)\s+- (?P<fields>\S.*)$")


def parse_go_ycsb_summary(text: str) -> dict[str, dict[str, float]]:
    """go-ycsb's final measurements: operation ("READ", "TOTAL", "READ_ERROR"…) → field → value.

    go-ycsb prints the same `OP - Takes(s): …, Count: …, OPS: …` lines every
    `--interval` seconds while it runs; only the block after `Run finished, takes …`
    covers the whole run. SetupError when there is no such block (the run did not end).
    """
    marker = text.rfind("Run finished, takes ")
    if marker < 0:
        raise SetupError("go-ycsb printed no 'Run finished' line")
    summary: dict[str, dict[str, float]] = {}
    for line in text[marker:].splitlines()[1:]:
        match = _GO_YCSB_LINE.match(line.strip())
        if not match:
            continue
        summary[match["op"]] = _fields(match["fields"])
    if "TOTAL" not in summary:
        raise SetupError("go-ycsb's final measurements have no TOTAL line")
    return summary


_GO_TPC_SUMMARY = re.compile(r"^\[Summary\] (?P<op>[A-Z_]+)\s+- (?P<fields>\S.*)$")
_GO_TPC_TPMC = re.compile(r"^tpmC: (?P<tpmc>[\d.]+)")


@dataclass
class GoTpcSummary:
    """The end of a `go-tpc tpcc run`: per-transaction `[Summary]` lines and tpmC."""

    tpmc: float
    by_type: dict[str, dict[str, float]]
    """"NEW_ORDER", "PAYMENT", … and "NEW_ORDER_ERR"-style failures → field → value."""

    @property
    def transactions(self) -> int:
        """Transactions completed without error, all five types."""
        return int(sum(f.get("Count", 0) for op, f in self.by_type.items() if not _failed(op)))

    @property
    def failed(self) -> int:
        """Transactions that ended in an error (go-tpc's `…_ERR` lines)."""
        return int(sum(f.get("Count", 0) for op, f in self.by_type.items() if _failed(op)))


def _failed(op: str) -> bool:
    return op.endswith("_ERR")


def parse_go_tpc_run(text: str) -> GoTpcSummary:
    """`[Summary] OP - Takes(s): …, Count: …, TPM: …` lines and `tpmC: …` of go-tpc's run.

    The `[Current]` lines printed every `--interval` are ignored. SetupError when the
    summary or tpmC is missing (the run did not finish, or no New-Order completed).
    """
    by_type: dict[str, dict[str, float]] = {}
    tpmc: float | None = None
    for line in text.splitlines():
        line = line.strip()
        match = _GO_TPC_SUMMARY.match(line)
        if match:
            by_type[match["op"]] = _fields(match["fields"])
            continue
        found = _GO_TPC_TPMC.match(line)
        if found:
            tpmc = float(found["tpmc"])
    if not by_type or tpmc is None:
        raise SetupError("go-tpc printed no [Summary] lines or no tpmC")
    return GoTpcSummary(tpmc=tpmc, by_type=by_type)


def _fields(text: str) -> dict[str, float]:
    """`Name: value, Name: value` → {name: value}, skipping values that are not numbers."""
    fields: dict[str, float] = {}
    for item in text.split(", "):
        name, _, value = item.partition(": ")
        try:
            fields[name] = float(value)
        except ValueError:
            continue
    return fields
