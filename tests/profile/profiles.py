"""Profiles made up for the model's tests: only the fields the model reads matter."""

from __future__ import annotations

from contio.profile.schema import Application, Profile, ScalingPoint


def point(containers: int, ops: float, util: float, cores: float, merged: float,
          bytes_per_io: float, normalized: float = 1.0, half_width: float | None = None,
          iops: float | None = None, depth: float = 1.0) -> ScalingPoint:  # fmt: skip
    return ScalingPoint(
        containers=containers, repetitions=3, ops_per_sec=ops,
        ops_per_sec_half_width=half_width, per_container_ops_per_sec=ops / containers,
        normalized=normalized, read_bytes_per_sec=None, write_bytes_per_sec=None,
        read_iops=iops, write_iops=None, bytes_per_io=bytes_per_io, merged_percent=merged,
        disk_utilization_percent=util, queue_depth=depth, cpu_cores=cores,
        cpu_seconds_per_op=cores / ops, host_cpu_percent=None,
    )  # fmt: skip


def profile(name: str, util: float, cores: float = 0.2, sequential: bool = False,
            ops: float = 1000.0, copies: dict[int, float] | None = None,
            half_width: float | None = None, iops: float | None = None,
            depth: float = 1.0) -> Profile:  # fmt: skip
    """`iops` and `depth`: the disk's requests/s and requests in flight (None: not counted,
    as the fair law needs neither)."""
    merged, size = (60.0, 512 * 1024.0) if sequential else (0.0, 4096.0)
    scaling = [point(1, ops, util, cores, merged, size, half_width=half_width, iops=iops,
                     depth=depth)]  # fmt: skip
    for k, normalized in (copies or {}).items():
        scaling.append(point(k, ops * k * normalized, min(100.0, util * k), cores * k,
                             merged, size, normalized))  # fmt: skip
    return Profile(
        application=Application(name=name, levels={}, backend={}, disk="vda"),
        host={"cores": 2}, measured="2026-11-29T00:00:00Z", results="/r", scaling=scaling,
        saturation_containers=None, valley=None,
    )  # fmt: skip
