"""A run phase's per-second samples (`contio.samplers.series`) summed up as the columns
each of its result rows carries in the results index.

Every mean is over the phase's samples, each weighted by the seconds it covers. Host
columns (the same for every container of the phase):

- `cpu_percent`: CPU utilization of the whole host (100 = every core busy);
- `disk_percent`, `disk_read_bytes_per_sec`, `disk_write_bytes_per_sec`: utilization
  (`io_ticks`) and bandwidth of the disk holding the data (`disk_device`), or, when no
  disk holds it (a Docker volume, a network file system), of the busiest disk each
  second (`disk_device` = `busiest`). A file system over several disks (btrfs striped
  over loop devices) is sampled as all of them (`disk_device` = `loop0+loop1+loop2`):
  bytes, requests, merges and requests in flight summed, utilization their mean (a
  stripe's members share its load; one member alone saw a third of the bytes);
- `net_rx_bytes_per_sec`, `net_tx_bytes_per_sec`: the host's network interfaces with a
  device (NICs; bridges and veth pairs would count the same bytes several times);
- `disk_read_ops_per_sec`, `disk_write_ops_per_sec`: the same disk's completed requests;
  `disk_merged_percent`: of the requests the block layer was given, the share it merged
  into an adjacent one (a sign of sequential I/O: near 0 for random I/O); and
  `disk_queue_depth`: the mean number of its requests in flight (`time_in_queue` over
  wall time).

Per container k, from source `client-c<k>` (its engine) and `server-c<k>` (its database
server, docker only): `client_cpu_percent` (100 = one core), `client_memory_bytes`
(cgroup memory with page cache for containers, resident set for processes),
`client_read_bytes_per_sec` / `client_write_bytes_per_sec` (storage bytes its processes
caused, /proc/PID/io), `client_memory_limit_bytes` (its container's memory limit, None
without one), `client_major_faults_per_sec` (page faults that read from disk), and the
same six for `server_`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from contio.errors import QosError
from contio.qos.device import file_system_disks

SYS_NET = Path("/sys/class/net")
BUSIEST = "busiest"
MEMBERS = "+"
"""Joins the member disks' names of a file system over several (`loop0+loop1+loop2`)."""
HOST_COLUMNS = (
    "cpu_percent",
    "disk_percent",
    "disk_read_bytes_per_sec",
    "disk_write_bytes_per_sec",
    "net_rx_bytes_per_sec",
    "net_tx_bytes_per_sec",
    "disk_read_ops_per_sec",
    "disk_write_ops_per_sec",
    "disk_merged_percent",
    "disk_queue_depth",
)
PROCESS_COLUMNS = (
    "cpu_percent",
    "memory_bytes",
    "read_bytes_per_sec",
    "write_bytes_per_sec",
    "memory_limit_bytes",
    "major_faults_per_sec",
)
ROLES = ("client", "server")
COLUMNS = (*HOST_COLUMNS, *(f"{r}_{c}" for r in ROLES for c in PROCESS_COLUMNS))
"""Every numeric column a run row may carry (NULL when nothing was sampled)."""


def client_source(container: int) -> str:
    """The metrics source name of container `container`'s engine."""
    return f"client-c{container}"


def server_source(container: int) -> str:
    """The metrics source name of container `container`'s database server."""
    return f"server-c{container}"


def data_disk(paths: Iterable[Path | None]) -> str | None:
    """The kernel name of the disk holding the first of `paths` that one holds (`vda`),
    or its disks' names joined by `MEMBERS` when its file system spans several."""
    for path in paths:
        if path is None:
            continue
        try:
            return MEMBERS.join(d.name for d in file_system_disks(path))
        except QosError:
            continue
    return None


def member_disks(disk: str) -> list[str]:
    """The kernel names in a `disk_device` (one, or several joined by `MEMBERS`)."""
    return disk.split(MEMBERS)


_SUMMED = ("read_bytes_per_s", "write_bytes_per_s", "read_ops_per_s", "write_ops_per_s",
           "merges_per_s", "queue_depth")  # fmt: skip


def _members_sample(disks: dict[str, dict[str, float]], names: list[str]) -> dict | None:
    """One second of a disk set: rates and requests in flight summed over the members,
    utilization their mean. None when no member was sampled that second."""
    found = [disks[n] for n in names if n in disks]
    if not found:
        return None
    if len(found) == 1 and len(names) == 1:
        return found[0]
    # A member idle since boot is left out of /proc/diskstats' reading: it counts as 0.
    combined = {
        key: sum(d[key] for d in found if key in d)
        for key in _SUMMED
        if any(key in d for d in found)
    }
    combined["util_percent"] = sum(d.get("util_percent", 0.0) for d in found) / len(names)
    return combined


def _weighted_mean(samples: list[tuple[float, float]]) -> float | None:
    """Mean of (seconds covered, value) pairs, weighted by the seconds."""
    total = sum(w for w, _ in samples)
    if not samples or total <= 0:
        return None
    return sum(w * v for w, v in samples) / total


def _read(path: Path) -> dict[str, list[tuple[float, dict[str, Any]]]]:
    """Samples by source as (seconds covered, sample), in order."""
    by_source: dict[str, list[tuple[float, dict[str, Any]]]] = defaultdict(list)
    last: dict[str, float] = {}
    if not path.is_file():
        return by_source
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        sample = json.loads(line)
        source, t = sample["source"], float(sample["t"])
        by_source[source].append((t - last.get(source, 0.0), sample))
        last[source] = t
    return by_source


def _is_nic(name: str) -> bool:
    return (SYS_NET / name / "device").exists()


def _host_columns(samples: list[tuple[float, dict[str, Any]]], disk: str | None) -> dict:
    def disk_of(sample: dict[str, Any]) -> dict[str, float] | None:
        disks = sample.get("disks") or {}
        if disk is not None:
            return _members_sample(disks, member_disks(disk))
        return max(disks.values(), key=lambda d: d["util_percent"], default=None)

    def series(value) -> list[tuple[float, float]]:
        found = [(w, value(s)) for w, s in samples]
        return [(w, v) for w, v in found if v is not None]

    nics = {n for _, s in samples for n in s.get("net", {}) if _is_nic(n)}

    def net(key: str):
        return lambda s: sum(v[key] for n, v in s.get("net", {}).items() if n in nics)

    def disk_value(key: str):
        return lambda s: (disk_of(s) or {}).get(key)

    reads = _weighted_mean(series(disk_value("read_ops_per_s")))
    writes = _weighted_mean(series(disk_value("write_ops_per_s")))
    merges = _weighted_mean(series(disk_value("merges_per_s")))
    merged = None
    if reads is not None and writes is not None and merges is not None:
        given = reads + writes + merges
        merged = 100.0 * merges / given if given > 0 else None
    return {
        "disk_read_ops_per_sec": reads,
        "disk_write_ops_per_sec": writes,
        "disk_merged_percent": merged,
        "disk_queue_depth": _weighted_mean(series(disk_value("queue_depth"))),
        "cpu_percent": _weighted_mean(series(lambda s: s["cpu_percent"])),
        "disk_percent": _weighted_mean(series(disk_value("util_percent"))),
        "disk_read_bytes_per_sec": _weighted_mean(series(disk_value("read_bytes_per_s"))),
        "disk_write_bytes_per_sec": _weighted_mean(series(disk_value("write_bytes_per_s"))),
        "net_rx_bytes_per_sec": _weighted_mean(series(net("rx_bytes_per_s"))) if nics else None,
        "net_tx_bytes_per_sec": _weighted_mean(series(net("tx_bytes_per_s"))) if nics else None,
    }


def _process_columns(role: str, samples: list[tuple[float, dict[str, Any]]]) -> dict:
    def mean(key: str) -> float | None:
        return _weighted_mean([(w, float(s[key])) for w, s in samples if s.get(key) is not None])

    limits = [s["memory_limit_bytes"] for _, s in samples if s.get("memory_limit_bytes")]
    return {
        f"{role}_cpu_percent": mean("cpu_percent"),
        f"{role}_memory_bytes": mean("memory_bytes"),
        f"{role}_read_bytes_per_sec": mean("task_read_bytes_per_s"),
        f"{role}_write_bytes_per_sec": mean("task_write_bytes_per_s"),
        f"{role}_memory_limit_bytes": float(min(limits)) if limits else None,
        f"{role}_major_faults_per_sec": mean("major_faults_per_s"),
    }


def phase_columns(path: Path, containers: int, disk: str | None) -> dict[int, dict[str, Any]]:
    """Per container (1-based) of the phase sampled into `path`: every column of `COLUMNS`
    (None where nothing was sampled) and `disk_device`."""
    by_source = _read(path)
    host = _host_columns(by_source.get("host", []), disk)
    host["disk_device"] = (disk or BUSIEST) if by_source.get("host") else None
    found = {}
    for k in range(1, containers + 1):
        columns = dict(host)
        for role, source in (("client", client_source(k)), ("server", server_source(k))):
            columns.update(_process_columns(role, by_source.get(source, [])))
        found[k] = columns
    return found
