"""Containers: each database container's start-to-ready time, and what running the
engine in a container costs against the same Redis.

Start-to-ready: from `DatabaseTarget.start` (container created) to the first readiness
probe that passes, with an empty data volume, default caches. No peer: informational.

Engine in a container vs on the host: one Redis container, loaded once; then the same
static engine binary (copied out of the `contio/engine` image, so the C library and
allocator are the same on both sides) runs workload A on the host and in a client
container, alternately, `--repeat` rounds, medians. Both reach Redis over the
experiment's bridge at the container's address (the host through the bridge's IP, the
container through Docker's DNS), so only the client's namespace and cgroup differ.
Goal: container ops/s ≥ 0.95 × host ops/s.
"""

from __future__ import annotations

import io
import statistics
import tarfile
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks.context import BenchContext
from benchmarks.engine_run import run_engine
from benchmarks.errors import BenchmarkSkipped, SetupError
from benchmarks.report import Report, Row, Sample, judge_ratio

NAME = "containers"
TITLE = "Database start-to-ready; contio-engine in a container vs on the host (Redis)"
PEER = "host"

RECORDS = 100_000
SECONDS = 10
THREADS = 4
GOAL = 0.95


def _docker():
    try:
        from contio.errors import RuntimeUnavailableError
        from contio.runtime.docker import DockerRuntime
        from contio.runtime.docker_engine import ensure_engine
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

    for name in registry.names():
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


def _static_engine(runtime, image_id: str, into: Path) -> Path:
    """The engine binary of the image, copied out (a created, never started container)."""
    container = runtime.client.containers.create(image_id, labels=runtime.labels("bench"))
    try:
        stream, _ = container.get_archive("/contio-engine")
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as archive:
            archive.extract("contio-engine", path=into, filter="data")
    finally:
        container.remove(force=True)
    return into / "contio-engine"


def _engine_cost(ctx: BenchContext, runtime, report: Report) -> None:
    from contio.cell.bindings import engine_binding
    from contio.cell.client import EngineJob, prepare_workdir, run_client
    from contio.images.build import build
    from contio.targets import registry
    from contio.targets.base import TargetOptions

    (engine,) = [r for r in build(runtime.client, ["engine"]) if r.name == "engine"]
    build(runtime.client, ["redis"])
    target = registry.target("redis")
    server = target.start(runtime, "redis", TargetOptions())
    target.wait_ready(server, timeout_s=120)
    binding = engine_binding(target, server)
    server.reload()
    address = server.attrs["NetworkSettings"]["Networks"][runtime.network().name]["IPAddress"]
    records = ctx.scaled(RECORDS, minimum=1000)
    seconds = ctx.scaled(SECONDS, minimum=2)
    common = {"recordcount": str(records), "fieldlength": "100"}
    with tempfile.TemporaryDirectory(prefix="contio-bench-", dir=ctx.scratch()) as tmp:
        static = _static_engine(runtime, engine.image_id, Path(tmp))
        host_ctx = BenchContext(engine=static, scale=ctx.scale, console=ctx.console)
        workdir = prepare_workdir(Path(tmp) / "cell")
        host_args = ["-p", f"redis.host={address}", "-p", "redis.port=6379"]
        for key, value in common.items():
            host_args += ["-p", f"{key}={value}"]
        workload = str(workdir / "workloads" / "workloada")
        run_engine(host_ctx, ["load", "redis", "-P", workload, *host_args, "-threads", "4"])
        host, container = [], []
        for round_ in range(ctx.repeat):
            order = ("host", "container") if round_ % 2 == 0 else ("container", "host")
            for side in order:
                props = {**common, "operationcount": "0", "maxexecutiontime": str(seconds)}
                if side == "host":
                    args = ["run", "redis", "-P", workload, *host_args,
                            "-p", "operationcount=0", "-p", f"maxexecutiontime={seconds}",
                            "-threads", str(THREADS)]  # fmt: skip
                    value = run_engine(host_ctx, args, timeout=seconds * 10 + 60).throughput
                    host.append(value)
                else:
                    job = EngineJob(f"run-{round_}", "run", binding, "workloada", THREADS, props)
                    result = run_client(runtime, engine.image_id, workdir, job, seconds * 10 + 60)
                    if result.status != "ok":
                        raise SetupError(f"engine container run {result.status}: {result.error}")
                    value = result.throughput_ops_per_sec
                    container.append(value)
                ctx.progress(f"round {round_ + 1} {side}: {value:,.0f} ops/s")
                report.samples.append(
                    Sample("contio" if side == "container" else "host", f"redis workloada {side}",
                           "ops/s", value, "ops/s", {"round": round_, "seconds": seconds})
                )  # fmt: skip
    in_container, on_host = statistics.median(container), statistics.median(host)
    report.rows.append(
        Row(case=f"redis workloada threads={THREADS}", metric="ops/s", unit="ops/s",
            contio=in_container, peer=on_host, goal=f"ratio ≥ {GOAL}",
            passed=judge_ratio(in_container, on_host, GOAL))
    )  # fmt: skip
    report.notes.append(
        f"Redis (appendfsync everysec) in a container; {records} records of 10×100 B; "
        f"{seconds} s runs, {ctx.repeat} round(s), medians; the same static engine binary on "
        "both sides; contio = engine in a client container, peer = engine on the host."
    )


def run(ctx: BenchContext) -> Report:
    """Start-to-ready of every database, then the engine's container cost."""
    report = Report(name=NAME, title=TITLE, peer=PEER)
    runtime = _docker()
    with runtime:
        _start_to_ready(ctx, runtime, report)
        _engine_cost(ctx, runtime, report)
    return report
