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
import os
import statistics
import tarfile
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.cgroup_peer import PeerCgroup
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


def _client_container_cpu(container) -> int:
    """CPU time of a running client container until it exits (its cgroup goes with it).

    Polls the cgroup file, not dockerd, so the sampling costs the measured run nothing
    but a file read every half second; the last half second before exit (writing the
    result) is missed.
    """
    from contio.samplers.cgroup import ContainerCgroup, ContainerGone

    used = 0
    try:
        cgroup = ContainerCgroup(container.id)
        while True:
            used = cgroup.read().cpu_ns
            time.sleep(0.5)
    except ContainerGone:
        return used


@dataclass
class _Sides:
    """What both sides of the engine-cost comparison run against the one Redis."""

    runtime: Any
    engine_image: str
    binding: Any
    workdir: Path
    host_ctx: BenchContext
    host_args: list[str]
    peer: PeerCgroup
    seconds: int

    def on_host(self) -> tuple[float, int, int]:
        """One run of the host engine in the peer cgroup: (ops/s, operations, CPU ns)."""
        workload = str(self.workdir / "workloads" / "workloada")
        args = ["run", "redis", "-P", workload, *self.host_args,
                "-p", "operationcount=0", "-p", f"maxexecutiontime={self.seconds}",
                "-threads", str(THREADS)]  # fmt: skip
        before = self.peer.cpu_ns()
        done = run_engine(self.host_ctx, args, timeout=self.seconds * 10 + 60,
                          launcher=self.peer.launcher())  # fmt: skip
        return done.throughput, done.operations, self.peer.cpu_ns() - before

    def in_container(self, round_: int, props: dict[str, str]) -> tuple[float, int, int]:
        """One run of the engine in a client container: (ops/s, operations, CPU ns)."""
        from contio.cell.client import EngineJob, finish_client, start_client

        job = EngineJob(f"run-{round_}", "run", self.binding, "workloada", THREADS, props)
        container = start_client(self.runtime, self.engine_image, self.workdir, job)
        try:
            cpu_ns = _client_container_cpu(container)
            result = finish_client(container, self.workdir, job, self.seconds * 10 + 60)
        finally:
            container.remove(force=True)
        if result.status != "ok":
            raise SetupError(f"engine container run {result.status}: {result.error}")
        return result.throughput_ops_per_sec, result.operations, cpu_ns


def _engine_cost(ctx: BenchContext, runtime, report: Report) -> None:
    from contio.cell.bindings import engine_binding
    from contio.cell.client import prepare_workdir
    from contio.images.build import build
    from contio.samplers.cgroup import ContainerCgroup
    from contio.targets import registry
    from contio.targets.base import TargetOptions

    (engine,) = [r for r in build(runtime.client, ["engine"]) if r.name == "engine"]
    build(runtime.client, ["redis"])
    target = registry.target("redis")
    server = target.start(runtime, "redis", TargetOptions())
    target.wait_ready(server, timeout_s=120)
    server.reload()
    address = server.attrs["NetworkSettings"]["Networks"][runtime.network().name]["IPAddress"]
    redis_cgroup = ContainerCgroup(server.id)
    records = ctx.scaled(RECORDS, minimum=1000)
    seconds = ctx.scaled(SECONDS, minimum=2)
    common = {"recordcount": str(records), "fieldlength": "100"}
    run_props = {**common, "operationcount": "0", "maxexecutiontime": str(seconds)}
    host_args = ["-p", f"redis.host={address}", "-p", "redis.port=6379"]
    for key, value in common.items():
        host_args += ["-p", f"{key}={value}"]
    samples: dict[str, list[Sample]] = {"host": [], "container": []}
    with tempfile.TemporaryDirectory(prefix="contio-bench-", dir=ctx.scratch()) as tmp:
        static = _static_engine(runtime, engine.image_id, Path(tmp))
        host_ctx = BenchContext(engine=static, scale=ctx.scale, console=ctx.console)
        workdir = prepare_workdir(Path(tmp) / "cell")
        workload = str(workdir / "workloads" / "workloada")
        run_engine(host_ctx, ["load", "redis", "-P", workload, *host_args, "-threads", "4"])
        # The host engine runs beside the containers, with their CPU weight (cgroup_peer.py).
        with PeerCgroup(server.attrs["State"]["Pid"]) as peer:
            ctx.progress(f"host engine in cgroup {peer.name} beside the containers, "
                         f"weight {peer.weight().strip()}")  # fmt: skip
            sides = _Sides(runtime, engine.image_id, engine_binding(target, server), workdir,
                           host_ctx, host_args, peer, seconds)  # fmt: skip
            for round_ in range(ctx.repeat):
                order = ("host", "container") if round_ % 2 == 0 else ("container", "host")
                for side in order:
                    redis_before = redis_cgroup.read().cpu_ns
                    if side == "host":
                        value, operations, client_ns = sides.on_host()
                    else:
                        value, operations, client_ns = sides.in_container(round_, run_props)
                    redis_ns = redis_cgroup.read().cpu_ns - redis_before
                    sample = _sample(side, value, round_, seconds, client_ns, redis_ns, operations)
                    ctx.progress(
                        f"round {round_ + 1} {side}: {value:,.0f} ops/s, CPU per op: client "
                        f"{sample.metadata['client_cpu_us_per_op']:.1f} µs, redis "
                        f"{sample.metadata['redis_cpu_us_per_op']:.1f} µs"
                    )
                    samples[side].append(sample)
                    report.samples.append(sample)
    _cost_rows(report, samples)
    report.notes.append(
        f"Redis (appendfsync everysec) in a container; {records} records of 10×100 B; "
        f"{seconds} s runs, {ctx.repeat} round(s) alternating, medians; the same static engine "
        "binary on both sides; contio = engine in a client container on the experiment's "
        "bridge, peer = engine on the host in a cgroup beside the containers with their CPU "
        "weight, reaching Redis at its bridge address. CPU per operation: the client's and "
        "Redis's cgroups over the run, divided by the operations."
    )


def _sample(
    side: str, value: float, round_: int, seconds: int, client_ns: int, redis_ns: int, ops: int
) -> Sample:
    meta = {
        "round": round_, "seconds": seconds, "load_after": os.getloadavg()[0],
        "client_cpu_us_per_op": client_ns / 1000 / max(ops, 1),
        "redis_cpu_us_per_op": redis_ns / 1000 / max(ops, 1),
    }  # fmt: skip
    tool = "contio" if side == "container" else "host"
    return Sample(tool, f"redis workloada {side}", "ops/s", value, "ops/s", meta)


def _cost_rows(report: Report, samples: dict[str, list[Sample]]) -> None:
    """The judged ops/s ratio and the CPU-per-operation rows (informational)."""

    def median(side: str, key: str | None = None) -> float:
        values = [s.value if key is None else s.metadata[key] for s in samples[side]]
        return statistics.median(values)

    in_container, on_host = median("container"), median("host")
    report.rows.append(
        Row(case=f"redis workloada threads={THREADS}", metric="ops/s", unit="ops/s",
            contio=in_container, peer=on_host, goal=f"ratio ≥ {GOAL}",
            passed=judge_ratio(in_container, on_host, GOAL))
    )  # fmt: skip
    for key, label in (("client_cpu_us_per_op", "client CPU per op"),
                       ("redis_cpu_us_per_op", "redis CPU per op")):  # fmt: skip
        report.rows.append(
            Row(case=f"redis workloada threads={THREADS}", metric=label, unit="µs",
                contio=median("container", key), peer=median("host", key))
        )  # fmt: skip


def run(ctx: BenchContext) -> Report:
    """Start-to-ready of every database, then the engine's container cost."""
    report = Report(name=NAME, title=TITLE, peer=PEER)
    runtime = _docker()
    with runtime:
        _start_to_ready(ctx, runtime, report)
        _engine_cost(ctx, runtime, report)
    return report
