"""Validity checks: did a cell measure what its finding is about?

Each check reads the run rows of a results folder (`contio.results.load`) and says,
per cell, whether the cell measured storage (`passed=True`), measured something else
(`passed=False`, with the reason and the numbers behind it), or that contio cannot
tell from what was sampled (`passed=None`). A verdict on a finding that rests on a
cell with a failed check is downgraded to *not valid here*.

- `cpu-saturated` (per cell): the host's CPU, or the engines' and servers' together,
  was near every core's worth: the cell measured the CPU, not storage.
- `data-in-cache` (per cell): the disk read a small fraction of what the workload read,
  or sat idle: the cell measured the page cache, not the device.
- `memory-thrashing` (per cell with major-fault samples): a database server or engine
  faulted pages back in from disk many times a second (its memory limit made it evict
  its own code and mapped pages): the cell measured memory pressure, not storage.
- `throttle-fraction` (per cell with throttles): the largest byte throttle of the cell
  is a tiny fraction of what the device moved unthrottled in the same run, so the
  device always has room and the throttled group cannot be squeezed.
- `order-confounded` (per factor, `cell_key` None): the repetitions of cells that
  differ only in that factor ran in the same level order nearly every time, so an order
  effect (a warming device, a filling file system) cannot be told apart from the
  factor's.

docs/validity.md explains each, with its threshold.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contio.experiment.findings import CHECKS
from contio.results.folder import BACKENDS_JSON, PhaseRecord
from contio.results.index import INDEX_FILE, ResultsIndex

CPU_SATURATED_PERCENT = 90.0
"""% of all cores. The host samples are means over the whole run phase, start-up and
the last partial second included, so a phase that kept every core busy averages a bit
below 100 %; above 90 % the run queue, not the device, sets the pace."""
CACHE_READ_FRACTION = 0.10
"""Device bytes read / workload bytes read. Read-ahead and metadata make a cold read
fetch about as much as it reads (≥ 1); below a tenth, nine reads in ten were served
from memory."""
DISK_IDLE_PERCENT = 2.0
"""Disk utilisation (io_ticks). A device serving a benchmark's I/O is busy most of the
time; below 2 % it served next to none of it (the page cache absorbed it)."""
MIN_READ_BYTES_PER_SEC = 1024.0 * 1024.0
"""Workload reads below 1 MiB/s are too few to compare with the device's counters (a
write workload's metadata reads)."""
MAJOR_FAULTS_PER_SEC = 50.0
"""Major page faults per second of a cell's servers and engines together (mean of the
phase). A process that has its working set faults a page in once, at start: MariaDB in
256m ran TPC-C with 0.6 a second; in 128m it faulted 220–430 a second, loading at a
crawl while the host's root disk was busy re-reading its pages (docs/validity.md)."""
THROTTLE_FRACTION = 0.05
"""Throttle / device bandwidth. A throttle at a twentieth of what the device delivers
leaves the other groups 95 % of it: they cannot take the throttled group's share, so
an isolation finding cannot show (paper 004's 10–40 MB/s on a 1.8 GB/s loop device)."""
ORDER_TAU = 0.8
"""|Kendall τ| between a factor's level order and the execution order, pooled over the
pairs of repetitions of the sets of cells that differ only in that factor. ±1: the same
level always ran first; 0.8 with two levels: 9 of 10 pairs in one order."""
MIN_TWIN_SETS = 3
"""Fewer sets of twin cells than this cannot show an order pattern (with one set any
order is 'always the same')."""

_RECORD_COLUMNS = {f.name for f in dataclasses.fields(PhaseRecord)} | {"id"}


@dataclass(frozen=True)
class ValidityCheck:
    """The outcome of one check on one cell (or on the whole run when `cell_key` is None)."""

    name: str
    """A stable identifier: `cpu-saturated`, `data-in-cache`, `throttle-fraction`,
    `order-confounded`, ..."""
    cell_key: str | None
    passed: bool | None
    """True: valid; False: the cell measured something else; None: cannot tell."""
    reason: str
    """A sentence a user can act on, with the measured numbers."""
    measured: dict[str, float] = field(default_factory=dict)
    factor: str | None = None
    """The factor a run-wide check is about (`order-confounded`: `io_controls`)."""


def folder_meta(folder: Path | str) -> dict[str, Any]:
    """What the checks need from a results folder besides its run rows: `spec`
    (spec.json), `host` (host.json), `backends` (backends.json), `order` (the cell
    order the run used: `{mode, seed}`, None for folders made before it was recorded)
    and `cpu_count` (the host's cores)."""
    path = Path(folder)
    meta: dict[str, Any] = {
        "spec": _read_json(path / "spec.json") or {},
        "host": _read_json(path / "host.json") or {},
        "backends": _read_json(path / BACKENDS_JSON) or [],
        "order": None,
    }
    if (path / INDEX_FILE).is_file():
        index = ResultsIndex.open(path)
        try:
            meta["order"] = index.meta("order")
        finally:
            index.close()
    meta["cpu_count"] = meta["host"].get("cpu_count")
    return meta


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def check_cells(frame: Any, meta: dict[str, Any]) -> list[ValidityCheck]:
    """Every check on every cell of a loaded results frame (`contio.results.load`), then
    the run-wide ones; checks that do not apply to a cell (no throttle) are left out."""
    if frame is None or len(frame) == 0 or "cell_key" not in frame:
        return []
    ok = frame[frame["status"] == "ok"] if "status" in frame else frame
    found: list[ValidityCheck] = []
    for key, rows in ok.groupby("cell_key", sort=False):
        found.append(cpu_saturated(str(key), rows, meta))
        found.append(data_in_cache(str(key), rows))
        thrashing = memory_thrashing(str(key), rows)
        if thrashing is not None:
            found.append(thrashing)
        throttle = throttle_fraction(str(key), rows, ok)
        if throttle is not None:
            found.append(throttle)
    found += order_confounded(frame, meta)
    return found


def _mean(values: Any) -> float:
    """Mean of the finite values, NaN when there are none."""
    numbers = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    return sum(numbers) / len(numbers) if numbers else math.nan


def _per_repetition(rows: Any, column: str, how: str) -> list[float]:
    """Per (session, repetition) of a cell: the column summed over its containers
    (`sum`) or taken once (`first`: host columns, the same for every container)."""
    if column not in rows:
        return []
    values = []
    for _, rep in rows.groupby(["session", "repetition"]):
        found = [float(v) for v in rep[column] if v is not None and math.isfinite(float(v))]
        if found:
            values.append(sum(found) if how == "sum" else found[0])
    return values


def cpu_saturated(cell_key: str, rows: Any, meta: dict[str, Any]) -> ValidityCheck:
    """Whether the host, or the cell's engines and servers together, kept every core busy."""
    cores = meta.get("cpu_count") or (meta.get("host") or {}).get("cpu_count")
    host = _mean(_per_repetition(rows, "cpu_percent", "first"))
    clients = _mean(_per_repetition(rows, "client_cpu_percent", "sum"))
    servers = _mean(_per_repetition(rows, "server_cpu_percent", "sum"))
    processes = (0.0 if math.isnan(clients) else clients) + (
        0.0 if math.isnan(servers) else servers
    )
    share = processes / cores if cores and not math.isnan(clients) else math.nan
    measured = {"host_cpu_percent": host, "process_cpu_percent_of_cores": share}
    measured.update({"client_cpu_percent": clients, "server_cpu_percent": servers})
    if math.isnan(host) and math.isnan(share):
        return ValidityCheck("cpu-saturated", cell_key, None, "no CPU samples", measured)
    on = f" of {cores} cores" if cores else " of all cores"
    said = f"host CPU {host:.0f} %{on}" if not math.isnan(host) else "host CPU not sampled"
    if not math.isnan(share):
        said += f"; the engines {clients:.0f} %" + (
            f" and database servers {servers:.0f} %" if not math.isnan(servers) else ""
        )
        said += f" (100 = one core), {share:.0f} % of the machine"
    if max(v for v in (host, share) if not math.isnan(v)) >= CPU_SATURATED_PERCENT:
        # Whose CPU it was decides the remedy: the cell's own threads, or other work.
        others = not math.isnan(share) and share < CPU_SATURATED_PERCENT / 2
        remedy = (
            "other processes kept the CPU busy: run on a quiet machine"
            if others
            else "fewer threads or containers, or more cores"
        )
        return ValidityCheck(
            "cpu-saturated", cell_key, False,
            f"{said}: at or above {CPU_SATURATED_PERCENT:.0f} %, the cell measured the CPU, "
            f"not storage ({remedy})",
            measured,
        )  # fmt: skip
    return ValidityCheck(
        "cpu-saturated", cell_key, True,
        f"{said}: below {CPU_SATURATED_PERCENT:.0f} %", measured,
    )  # fmt: skip


def _mib(value: float) -> str:
    return f"{value / 1024 / 1024:,.1f} MiB/s"


def data_in_cache(cell_key: str, rows: Any) -> ValidityCheck:
    """Whether the device served the cell's reads (file workloads: device bytes read
    against the workload's), or at least was busy (any workload)."""
    workload = _mean(_per_repetition(rows, "read_mib_per_sec", "sum")) * 1024 * 1024
    device = _mean(_per_repetition(rows, "disk_read_bytes_per_sec", "first"))
    busy = _mean(_per_repetition(rows, "disk_percent", "first"))
    disks = {str(d) for d in rows.get("disk_device", []) if isinstance(d, str) and d}
    disk = ", ".join(sorted(disks)) or "the data's disk"
    measured = {
        "workload_read_bytes_per_sec": workload,
        "device_read_bytes_per_sec": device,
        "disk_percent": busy,
    }
    if workload >= MIN_READ_BYTES_PER_SEC and not math.isnan(device):
        fraction = device / workload
        measured["device_read_fraction"] = fraction
        said = (
            f"the workload read {_mib(workload)}, the device ({disk}) {_mib(device)}: "
            f"{fraction:.1%}"
        )
        if fraction < CACHE_READ_FRACTION:
            return ValidityCheck(
                "data-in-cache", cell_key, False,
                f"{said}, below {CACHE_READ_FRACTION:.0%}: the reads came from the page "
                "cache, not the device (a data set larger than memory, direct I/O or "
                "drop_caches)",
                measured,
            )  # fmt: skip
        return ValidityCheck(
            "data-in-cache", cell_key, True,
            f"{said} of it came from the device", measured,
        )  # fmt: skip
    if math.isnan(busy):
        return ValidityCheck(
            "data-in-cache", cell_key, None, "the data's disk was not sampled", measured
        )
    if busy < DISK_IDLE_PERCENT:
        return ValidityCheck(
            "data-in-cache", cell_key, False,
            f"the data's disk ({disk}) was {busy:.1f} % utilised, below "
            f"{DISK_IDLE_PERCENT:.0f} %: the cell's I/O stayed in memory (a data set larger "
            "than memory, direct I/O or drop_caches)",
            measured,
        )  # fmt: skip
    return ValidityCheck(
        "data-in-cache", cell_key, True,
        f"the data's disk ({disk}) was {busy:.1f} % utilised", measured,
    )  # fmt: skip


def memory_thrashing(cell_key: str, rows: Any) -> ValidityCheck | None:
    """Whether the cell's servers and engines kept faulting pages back in from disk (a
    memory limit too small for them); None for folders without major-fault samples."""
    per_role = [
        _per_repetition(rows, f"{role}_major_faults_per_sec", "sum")
        for role in ("server", "client")
    ]
    if not any(per_role):
        return None
    rate = sum(_mean(values) for values in per_role if values)  # the mean of their sum
    measured = {"major_faults_per_sec": rate}
    worded, fullest = _fullest_limit(rows)
    if not math.isnan(fullest):
        measured["memory_fraction_of_limit"] = fullest
    said = f"{rate:,.0f} major page faults a second{worded}"
    if rate >= MAJOR_FAULTS_PER_SEC:
        return ValidityCheck(
            "memory-thrashing", cell_key, False,
            f"{said}: at or above {MAJOR_FAULTS_PER_SEC:.0f}, a process re-read its own "
            "pages from disk, so the cell measured memory pressure, not storage (raise "
            "the target's memory_limit or use a larger cache setting)",
            measured,
        )  # fmt: skip
    return ValidityCheck(
        "memory-thrashing", cell_key, True,
        f"{said}: below {MAJOR_FAULTS_PER_SEC:.0f}", measured,
    )  # fmt: skip


def _fullest_limit(rows: Any) -> tuple[str, float]:
    """(", the server at 128.0 of its 128.0 MiB", 1.0) for the container closest to its
    memory limit; ("", NaN) when none had one."""
    fullest = math.nan
    worded = ""
    for role in ("server", "client"):
        used, limit = f"{role}_memory_bytes", f"{role}_memory_limit_bytes"
        if used not in rows or limit not in rows:
            continue
        for u, cap in zip(rows[used], rows[limit], strict=True):
            if u is None or cap is None or not (math.isfinite(u) and math.isfinite(cap)):
                continue
            if cap > 0 and (math.isnan(fullest) or u / cap > fullest):
                fullest = u / cap
                worded = f", the {role} at {u / 2**20:,.1f} of its {cap / 2**20:,.1f} MiB"
    return worded, fullest


def _throttles(rows: Any) -> list[float]:
    """Per throttled group of the cell: its byte limit (read + write limits), bytes/s."""
    limits = {}
    for container, text in zip(rows["container"], rows.get("io_control", []), strict=False):
        if not isinstance(text, str) or not text:
            continue
        try:
            applied = json.loads(text).get("limits") or {}
        except (ValueError, AttributeError):
            continue
        total = sum(applied.get(k) or 0 for k in ("read_bps", "write_bps"))
        if total:
            limits[int(container)] = float(total)
    return list(limits.values())


def _device_bandwidth(frame: Any, backend: Any) -> float:
    """The most bytes/s (read + written) the device moved in any repetition of a cell
    without throttles on `backend`: what it can deliver on this host."""
    best = math.nan
    same = frame if backend is None else frame[frame["backend"].astype(str) == str(backend)]
    for _, rows in same.groupby("cell_key", sort=False):
        if _throttles(rows):
            continue
        reads = _per_repetition(rows, "disk_read_bytes_per_sec", "first")
        writes = _per_repetition(rows, "disk_write_bytes_per_sec", "first")
        for moved in (r + w for r, w in zip(reads, writes, strict=False)):
            best = moved if math.isnan(best) else max(best, moved)
    return best


def throttle_fraction(cell_key: str, rows: Any, frame: Any) -> ValidityCheck | None:
    """Whether the cell's byte throttles are more than a sliver of the device's bandwidth;
    None (no check) for a cell without throttles."""
    limits = _throttles(rows) if "io_control" in rows else []
    if not limits:
        return None
    backend = rows["backend"].iloc[0] if "backend" in rows else None
    bandwidth = _device_bandwidth(frame, backend)
    largest = max(limits)
    measured = {"largest_throttle_bytes_per_sec": largest, "device_bytes_per_sec": bandwidth}
    if math.isnan(bandwidth) or bandwidth <= 0:
        return ValidityCheck(
            "throttle-fraction", cell_key, None,
            f"the largest throttle is {_mib(largest)}; no unthrottled cell on the same "
            "backend measured the device's bandwidth to compare it with",
            measured,
        )  # fmt: skip
    fraction = largest / bandwidth
    measured["throttle_fraction"] = fraction
    said = (
        f"the largest throttle, {_mib(largest)}, is {fraction:.1%} of the {_mib(bandwidth)} "
        "the device moved unthrottled in this run"
    )
    if fraction < THROTTLE_FRACTION:
        return ValidityCheck(
            "throttle-fraction", cell_key, False,
            f"{said}, below {THROTTLE_FRACTION:.0%}: the other groups cannot squeeze the "
            "throttled ones (throttles at 10–40 % of the device, or a slower device)",
            measured,
        )  # fmt: skip
    return ValidityCheck("throttle-fraction", cell_key, True, said, measured)


_LEVEL_RECORD_COLUMNS = ("target", "workload", "threads")
"""Phase record columns that are also factors (the record's value replaces the level's
in `contio.results.load`; a mix's members differ in them inside one cell)."""


def _factor_columns(frame: Any) -> list[str]:
    """The factors of the frame that vary across cells: the cells' level columns (and
    target, workload, threads where a cell has one of each), with several values."""
    found = []
    for column in frame.columns:
        if column in _RECORD_COLUMNS and column not in _LEVEL_RECORD_COLUMNS:
            continue
        text = frame[column].astype(str)
        if text.nunique() > 1 and (text.groupby(frame["cell_key"]).nunique() == 1).all():
            found.append(column)
    return found


def _order_text(meta: dict[str, Any]) -> str:
    order = meta.get("order") or {}
    if order.get("mode") == "random":
        return f"the cells ran in a random order (seed {order.get('seed')})"
    if order.get("mode") == "interleaved":
        return f"the cells ran in interleaved rounds (seed {order.get('seed')})"
    if order.get("mode") == "counterbalanced":
        return f"the cells ran in counterbalanced passes (seed {order.get('seed')})"
    return "the cells ran in their fixed order"


def _repetition_starts(frame: Any) -> dict[str, list[str]]:
    """Per cell key, when each of its repetitions (session, repetition) started."""
    found: dict[str, list[str]] = {}
    columns = ["cell_key", "session", "repetition"]
    for (key, _, _), started in frame.groupby(columns, sort=False)["started_at"].min().items():
        found.setdefault(str(key), []).append(str(started))
    return found


def order_confounded(frame: Any, meta: dict[str, Any]) -> list[ValidityCheck]:
    """Per factor with several levels: whether cells that differ only in it ran in one
    level order so consistently that the order's effect and the factor's are one.

    Kendall τ between level and time over every pair of repetitions of two such cells:
    a cell whose repetitions all ran before the other's agrees in every pair; cells
    interleaved in rounds agree in about half.
    """
    starts = _repetition_starts(frame)
    factors = _factor_columns(frame)
    cells = frame.drop_duplicates("cell_key").set_index("cell_key")
    found = []
    for factor in factors:
        others = [f for f in factors if f != factor]
        levels = list(dict.fromkeys(cells.sort_values("cell_index")[factor].astype(str)))
        rank = {level: i for i, level in enumerate(levels)}
        sets = 0
        concordant = discordant = 0
        keyed = cells.assign(**{f: cells[f].astype(str) for f in others})
        groups = keyed.groupby(others, sort=False) if others else [((), keyed)]
        for _, twins in groups:
            if twins[factor].astype(str).nunique() < 2:
                continue
            sets += 1
            items = [
                (rank[str(v)], started)
                for k, v in twins[factor].items()
                for started in starts.get(str(k), [])
            ]
            for i, (level_a, time_a) in enumerate(items):
                for level_b, time_b in items[i + 1 :]:
                    if level_a == level_b or time_a == time_b:
                        continue
                    same = (level_a < level_b) == (time_a < time_b)
                    concordant, discordant = concordant + same, discordant + (not same)
        if sets == 0 or concordant + discordant == 0:
            continue
        tau = (concordant - discordant) / (concordant + discordant)
        measured = {"kendall_tau": tau, "twin_sets": float(sets)}
        leader, led = (levels[0], concordant) if tau >= 0 else (levels[-1], discordant)
        said = (
            f"in {sets} set{'s' if sets > 1 else ''} of cells differing only in {factor}, "
            f"{leader} ran first in {led} of {concordant + discordant} pairs of repetitions "
            f"(Kendall τ {tau:+.2f}); " + _order_text(meta)
        )
        if sets < MIN_TWIN_SETS:
            verdict: bool | None = None
            said += f": fewer than {MIN_TWIN_SETS} sets cannot tell order from {factor}"
        elif abs(tau) >= ORDER_TAU:
            verdict = False
            said += (
                f": |τ| ≥ {ORDER_TAU}, the order's effect cannot be told apart from "
                f"{factor}'s (run with order: {{mode: interleaved}} or "
                "{mode: counterbalanced})"
            )
        else:
            verdict = True
        found.append(ValidityCheck("order-confounded", None, verdict, said, measured, factor))
    return found


def bearing_on(
    checks: Sequence[ValidityCheck], cells: Collection[str], factors: Collection[str]
) -> list[ValidityCheck]:
    """The checks that bear on a conclusion about `cells` comparing `factors`: those of
    the cells, and the run-wide ones (cell order) about a compared factor."""
    found = []
    for check in checks:
        if check.cell_key is not None and check.cell_key not in cells:
            continue
        if check.cell_key is None and check.factor is not None and check.factor not in factors:
            continue
        found.append(check)
    return found


FAILED_MEANS = {
    "cpu-saturated": "measured the CPU, not storage",
    "data-in-cache": "measured the page cache, not the device",
    "memory-thrashing": "measured memory pressure, not storage",
    "throttle-fraction": "had throttles far below the device's bandwidth",
}
"""What a cell that failed a per-cell check measured instead, for a caveat's clause."""


def _which(failed: int, total: int) -> str:
    if failed == total:
        return {1: "the cell", 2: "both cells"}.get(total, f"all {total} cells")
    if failed == 1:
        return f"one of the {total} cells" if total > 2 else "one of the two cells"
    return f"{failed} of {total} cells"


def caveat(
    checks: Sequence[ValidityCheck], cells: Collection[str], factors: Collection[str]
) -> str | None:
    """ "not valid here: both cells measured the page cache, not the device; the cell
    order is confounded with target" for a conclusion about `cells` comparing
    `factors`, None when no check that bears on it failed (checks that cannot tell say
    nothing here: the report's validity section lists them)."""
    failed = [c for c in bearing_on(checks, cells, factors) if c.passed is False]
    if not failed:
        return None
    clauses = []
    for name in CHECKS:
        mine = [c for c in failed if c.name == name]
        per_cell = {c.cell_key for c in mine if c.cell_key is not None}
        if per_cell:
            means = FAILED_MEANS.get(name, f"failed {name}")
            clauses.append(f"{_which(len(per_cell), len(set(cells)))} {means}")
        confounded = [str(c.factor) for c in mine if c.cell_key is None]
        if confounded:
            clauses.append(f"the cell order is confounded with {' and '.join(confounded)}")
    others = sorted({c.name for c in failed} - set(CHECKS))
    clauses += [f"{name} failed" for name in others]
    return "not valid here: " + "; ".join(clauses)


def failed_summary(checks: list[ValidityCheck]) -> str | None:
    """One line naming the failed checks (`contio results`), None when none failed."""
    failed = [c for c in checks if c.passed is False]
    if not failed:
        return None
    cells = {c.cell_key for c in checks if c.cell_key is not None}
    bad = {c.cell_key for c in failed if c.cell_key is not None}
    counts: dict[str, int] = {}
    for check in failed:
        if check.cell_key is not None:
            counts[check.name] = counts.get(check.name, 0) + 1
    parts = []
    if bad:
        named = ", ".join(f"{name} {n}" for name, n in counts.items())
        parts.append(f"{len(bad)} of {len(cells)} cells failed a check ({named})")
    confounded = [c.factor for c in failed if c.cell_key is None]
    if confounded:
        parts.append("cell order confounded with " + ", ".join(map(str, confounded)))
    return "validity: " + "; ".join(parts) + " (the report's validity section says why)"
