"""Containers: each database container's start-to-ready time, and what running the
engine in a container costs against the same Redis (container_cost.py).

Start-to-ready: from `DatabaseTarget.start` (container created) to the first readiness
probe that passes, with an empty data volume, default caches. No peer: informational.
"""

from __future__ import annotations

import time
import uuid

from benchmarks.container_cost import engine_cost
from benchmarks.context import BenchContext
from benchmarks.errors import BenchmarkSkipped, SetupError
from benchmarks.report import Report, Row, Sample

NAME = "containers"
TITLE = "Database start-to-ready; contio-engine in a container vs on the host (Redis)"
PEER = "host"


def docker_runtime():
    """A DockerRuntime for one benchmark run; BenchmarkSkipped when there is no Docker engine."""
    try:
        from contio.containers.docker_engine import ensure_engine
        from contio.containers.docker_runtime import DockerRuntime
        from contio.errors import RuntimeUnavailableError
    except ImportError as exc:
        raise SetupError(f"the contio package is not importable ({exc}); run `make bench`") from exc
    try:
        ensure_engine()
    except RuntimeUnavailableError as exc:
        raise BenchmarkSkipped(f"no Docker engine: {exc}") from exc
    return DockerRuntime(experiment=f"bench-{uuid.uuid4().hex[:8]}")


def _start_to_ready(ctx: BenchContext, runtime, report: Report) -> None:
    from contio.images.build import build
    from contio.targets import registry
    from contio.targets.base import TargetOptions

    for name in registry.offline_names():
        target = registry.target(name)
        build(runtime.client, [target.recipe])
        started = time.monotonic()
        container = target.start(runtime, f"ready-{name}", TargetOptions())
        target.wait_ready(container, timeout_s=300)
        seconds = time.monotonic() - started
        container.remove(force=True, v=True)
        report.samples.append(Sample("contio", f"{name} start-to-ready", "seconds", seconds, "s"))
        report.rows.append(
            Row(case=f"{name} start-to-ready", metric="time", unit="s", contio=seconds)
        )
        ctx.progress(f"{name}: ready {seconds:.1f} s after start")


def run(ctx: BenchContext) -> Report:
    """Start-to-ready of every database, then the engine's container cost."""
    report = Report(name=NAME, title=TITLE, peer=PEER)
    runtime = docker_runtime()
    with runtime:
        _start_to_ready(ctx, runtime, report)
        engine_cost(ctx, runtime, report)
    return report
