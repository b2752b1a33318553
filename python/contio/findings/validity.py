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

`order_check` holds the run-wide check, `validity_check` a check's outcome and how a
failed one is said. docs/validity.md explains each, with its threshold.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from contio.findings.order_check import order_confounded
from contio.findings.validity_check import ValidityCheck
from contio.results.folder import BACKENDS_JSON
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
