"""A results folder of `contio profile`'s run, distilled into a `Profile`.

Per container count, each repetition's numbers are summed over the copies (ops/s, CPU)
or taken once (the disk's and the host's: one device, one host), then averaged over
the repetitions; throughput also gets its confidence interval, and the counts together
give the scaling curve with `contio.stats`' saturation point and valley. The validity
checks of the run (`contio.findings.validity`) that fail become the profile's caveats.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from contio import __version__
from contio.errors import ProfileError, StatisticsInputError
from contio.findings.validity import check_cells, folder_meta
from contio.profile.schema import Application, Profile, ScalingPoint, Valley
from contio.results.folder import load
from contio.samplers.block_requests import REQUESTS_JSON
from contio.stats.interval import confidence_interval
from contio.stats.saturation import saturation_point
from contio.stats.valley import find_valley

DEVICE_COLUMNS = (
    "disk_read_bytes_per_sec", "disk_write_bytes_per_sec", "disk_read_ops_per_sec",
    "disk_write_ops_per_sec", "disk_merged_percent", "disk_percent", "disk_queue_depth",
    "cpu_percent",
)  # fmt: skip
"""Columns that are the device's or the host's: the same on every copy's row."""


def _mean(values: list[float | None]) -> float | None:
    found = [v for v in values if v is not None and not math.isnan(v)]
    return sum(found) / len(found) if found else None


def _traced(rows: Any, folder: Path) -> tuple[dict[str, int], int, int, list[str]]:
    """The run phases' request traces at one container count, summed: (requests per size
    bucket, requests, sequential requests, why some phases had none)."""
    sizes: dict[str, int] = {}
    requests = sequential = 0
    missing: list[str] = []
    for _, rep in rows.groupby(["session", "repetition"], sort=True):
        path = folder / Path(str(rep["raw_json"].iloc[0])).parent / REQUESTS_JSON
        if not path.is_file():
            continue
        found = json.loads(path.read_text())
        if "unavailable" in found:
            missing.append(str(found["unavailable"]))
            continue
        for label, count in found["sizes"].items():
            sizes[label] = sizes.get(label, 0) + int(count)
        requests += int(found["requests"])
        sequential += int(found["sequential"])
    return sizes, requests, sequential, missing


def _repetitions(rows: Any) -> list[dict[str, float | None]]:
    """One entry per repetition at one container count: its copies summed, its device
    columns once."""
    found = []
    for _, rep in rows.groupby(["session", "repetition"], sort=True):
        cpu = rep[["client_cpu_percent", "server_cpu_percent"]].astype(float).fillna(0.0)
        entry: dict[str, float | None] = {
            "ops": float(rep["steady_ops_per_sec"].sum()),
            "cores": float(cpu.to_numpy().sum()) / 100.0 if cpu.to_numpy().any() else None,
            "data_bytes": _column_mean(rep, "data_bytes"),
        }
        for column in DEVICE_COLUMNS:
            value = rep[column].iloc[0] if column in rep else None
            entry[column] = None if value is None or _isnan(value) else float(value)
        found.append(entry)
    return found


def _column_mean(rows: Any, column: str) -> float | None:
    """The mean of a per-copy column over the copies (None: not recorded)."""
    if column not in rows:
        return None
    return _mean([None if _isnan(v) or v is None else float(v) for v in rows[column]])


def _isnan(value: Any) -> bool:
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def _point(
    containers: int, reps: list[dict[str, float | None]], solo: float | None,
    traced: tuple[dict[str, int], int, int, list[str]],
) -> ScalingPoint:  # fmt: skip
    ops = [float(r["ops"] or 0.0) for r in reps]
    interval = confidence_interval(ops)

    def mean(key: str) -> float | None:
        return _mean([r[key] for r in reps])

    reads, writes = mean("disk_read_ops_per_sec"), mean("disk_write_ops_per_sec")
    read_b, write_b = mean("disk_read_bytes_per_sec"), mean("disk_write_bytes_per_sec")
    ios = (reads or 0.0) + (writes or 0.0)
    moved = (read_b or 0.0) + (write_b or 0.0)
    cores = mean("cores")
    per_container = interval.mean / containers
    return ScalingPoint(
        containers=containers, repetitions=len(reps), ops_per_sec=interval.mean,
        ops_per_sec_half_width=None if math.isnan(interval.half_width) else interval.half_width,
        per_container_ops_per_sec=per_container,
        normalized=per_container / solo if solo else 1.0,
        read_bytes_per_sec=read_b, write_bytes_per_sec=write_b,
        read_iops=reads, write_iops=writes,
        bytes_per_io=moved / ios if ios > 0 else None,
        merged_percent=mean("disk_merged_percent"),
        disk_utilization_percent=mean("disk_percent"), queue_depth=mean("disk_queue_depth"),
        cpu_cores=cores,
        cpu_seconds_per_op=cores / interval.mean if cores is not None and interval.mean > 0 else None,
        host_cpu_percent=mean("cpu_percent"), data_bytes=mean("data_bytes"),
        request_sizes=dict(sorted(traced[0].items(), key=lambda kv: _bucket_order(kv[0])))
        if traced[1] else None,
        sequential_percent=100.0 * traced[2] / traced[1] if traced[1] else None,
    )  # fmt: skip


def _curve(levels: list[int], samples: list[list[float]]) -> tuple[float | None, Valley | None]:
    if len(levels) < 2:
        return None, None
    try:
        saturation = saturation_point(levels, samples)
        valley = find_valley(levels, samples)
    except StatisticsInputError:
        return None, None
    found = None
    if valley is not None:
        found = Valley(
            peak_containers=int(valley.peak_level), bottom_containers=int(valley.bottom_level),
            depth=valley.depth.estimate,
            recovery_containers=None if valley.recovery_level is None else int(valley.recovery_level),
        )  # fmt: skip
    return saturation.point, found


def _caveats(frame: Any, folder: Path) -> list[str]:
    """The failed validity checks, per container count."""
    counts = frame.drop_duplicates("cell_key").set_index("cell_key")["containers"].to_dict()
    said = []
    for check in check_cells(frame, folder_meta(folder)):
        if check.passed is False and check.cell_key is not None:
            count = counts.get(check.cell_key, "?")
            unit = "container" if count == 1 else "containers"
            said.append(f"{count} {unit}: {check.name}: {check.reason}")
    return said


def distill(folder: Path) -> Profile:
    """The profile of the one application `folder`'s run measured (`ProfileError` when it
    has no completed run phase)."""
    frame = load(folder)
    ok = frame[(frame["phase"] == "run") & (frame["status"] == "ok")] if len(frame) else frame
    if len(ok) == 0:
        raise ProfileError(f"{folder}: no run phase completed: nothing to profile")
    by_count = {int(n): _repetitions(rows) for n, rows in ok.groupby("containers", sort=True)}
    levels = sorted(by_count)
    solo_reps = by_count[levels[0]]
    solo = _mean([float(r["ops"] or 0.0) for r in solo_reps])
    solo_per_container = solo / levels[0] if solo else None
    traces = {int(n): _traced(rows, folder) for n, rows in ok.groupby("containers", sort=True)}
    points = [_point(n, by_count[n], solo_per_container, traces[n]) for n in levels]
    samples = [[float(r["ops"] or 0.0) for r in by_count[n]] for n in levels]
    saturation, valley = _curve(levels, samples)
    spec = json.loads((folder / "spec.json").read_text())
    first = ok.iloc[0]
    level_columns = [c for c in ("target", "workload", "mix", "threads", "runtime", "io_controls")
                     if c in ok.columns]  # fmt: skip
    levels_of = {c: _plain(first[c]) for c in level_columns}
    levels_of.update({c: _plain(first[c]) for c in ok.columns if c.startswith("properties.")})
    backend_name = str(first["backend"])
    definitions = spec.get("backends") or {}
    backend = definitions.get(backend_name) or spec.get("backend") or {}
    host = (
        json.loads((folder / "host.json").read_text()) if (folder / "host.json").is_file() else {}
    )
    return Profile(
        application=Application(
            name=spec.get("name", folder.name), levels=levels_of,
            backend={"name": backend_name, **backend},
            disk=str(first["disk_device"]) if first.get("disk_device") else None,
            spec=spec,
        ),
        host={"cores": host.get("cpu_count") or os.cpu_count(),
              "memory": host.get("memory_total"), "contio": __version__},
        measured=str(ok["started_at"].min()), results=str(folder),
        scaling=points, saturation_containers=saturation, valley=valley,
        caveats=_caveats(ok, folder) + _unsampled(points) + _untraced(traces),
    )  # fmt: skip


def _bucket_order(label: str) -> float:
    """`4K` < `8K` < … < `1M` < `>1M`."""
    if label.startswith(">"):
        return float("inf")
    return float(label[:-1]) * (1024 if label.endswith("M") else 1)


def _untraced(traces: dict[int, tuple[dict[str, int], int, int, list[str]]]) -> list[str]:
    """Why request sizes are missing, once per reason."""
    reasons = sorted({r for t in traces.values() for r in t[3]})
    return [f"request sizes not traced: {r}" for r in reasons]


def _unsampled(points: list[ScalingPoint]) -> list[str]:
    """Counts whose phases ended before the sampler's first second: no CPU to show."""
    short = [str(p.containers) for p in points if p.cpu_cores is None]
    if not short:
        return []
    said = (
        f"{', '.join(short)} container(s): no CPU samples: the phases ended before the "
        "sampler's first second; profile with a longer stopping rule (fixed-time ≥ 5 s)"
    )
    return [said]


def _plain(value: Any) -> Any:
    """A pandas cell as JSON: numbers stay numbers, the rest text."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value if isinstance(value, (int, float, str, bool)) or value is None else str(value)
