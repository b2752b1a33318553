"""What running contio-engine in a container costs against the same Redis container.

One Redis container (contio/redis, appendfsync everysec), loaded once; then the same
static engine binary (copied out of `contio/engine`, so the C library and allocator are
the same everywhere) runs workload A with 4 threads, in turn:

- `host` (the peer): on the host, in a cgroup beside the containers with their CPU
  weight (cgroup_peer.py), reaching Redis at its bridge address;
- `container` (judged): in a client container as cells run it (`engine_binding`'s
  default: the host's network namespace, Redis at its bridge address), so the two
  differ only in the container's other namespaces, its cgroup and seccomp;
- `bridge` (informational): in a client container with a network namespace of its own
  on the experiment's bridge, reaching Redis by name (`host_network=False`).

Rounds alternate the order; medians of `--repeat` rounds. Per side, the CPU per
operation of the client and of Redis (their cgroups over the run) says where a
difference comes from. Goal: container ops/s ≥ 0.95 × host ops/s.
"""

from __future__ import annotations

import io
import os
import statistics
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.cgroup_peer import PeerCgroup
from benchmarks.context import BenchContext
from benchmarks.engine_run import run_engine
from benchmarks.errors import SetupError
from benchmarks.report import Report, Row, Sample, judge_ratio

RECORDS = 100_000
SECONDS = 10
THREADS = 4
GOAL = 0.95
CASE = f"redis workloada threads={THREADS}"
SIDES = ("host", "container", "bridge")


def static_engine(runtime, image_id: str, into: Path) -> Path:
    """The engine binary of the image, copied out of a created, never started container.

    The container stays until the runtime's teardown: while it exists, dockerd refuses to
    remove the image, so a build from another tree that moves `contio/engine:latest`
    meanwhile cannot take away the image this run uses (a second tag would not stop it).
    """
    holder = runtime.client.containers.create(image_id, labels=runtime.labels("bench"))
    stream, _ = holder.get_archive("/contio-engine")
    data = b"".join(stream)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extract("contio-engine", path=into, filter="data")
    return into / "contio-engine"


def client_container_cpu(container) -> int:
    """CPU time of a running client container until it exits (its cgroup goes with it).

    Polls the cgroup file, not dockerd, so the sampling costs the measured run only a
    file read every 0.1 s; at most the last 0.1 s before exit is missed (1% of a 10 s run).
    """
    from contio.samplers.cgroup import ContainerCgroup, ContainerGone

    used = 0
    try:
        cgroup = ContainerCgroup(container.id)
        while True:
            used = cgroup.read().cpu_ns
            time.sleep(0.1)
    except ContainerGone:
        return used


@dataclass
class Sides:
    """Everything the three sides need; each run returns (ops/s, operations, client CPU ns)."""

    runtime: Any
    engine_image: str
    bindings: dict[str, Any]
    """side → the EngineBinding its client container uses"""
    workdir: Path
    host_ctx: BenchContext
    host_args: list[str]
    peer: PeerCgroup
    records: int
    seconds: int

    def run(self, side: str, round_: int) -> tuple[float, int, int]:
        return self.on_host() if side == "host" else self.in_container(side, round_)

    def on_host(self) -> tuple[float, int, int]:
        workload = str(self.workdir / "workloads" / "workloada")
        args = ["run", "redis", "-P", workload, *self.host_args,
                "-p", "operationcount=0", "-p", f"maxexecutiontime={self.seconds}",
                "-threads", str(THREADS)]  # fmt: skip
        before = self.peer.cpu_ns()
        done = run_engine(self.host_ctx, args, timeout=self.seconds * 10 + 60,
                          launcher=self.peer.launcher())  # fmt: skip
        return done.throughput, done.operations, self.peer.cpu_ns() - before

    def in_container(self, side: str, round_: int) -> tuple[float, int, int]:
        from contio.cells.engine_client import EngineJob, finish_client, start_client

        props = {"recordcount": str(self.records), "fieldlength": "100", "operationcount": "0",
                 "maxexecutiontime": str(self.seconds)}  # fmt: skip
        job = EngineJob(f"{side}-{round_}", "run", self.bindings[side], "workloada", THREADS,
                        props)  # fmt: skip
        container = start_client(self.runtime, self.engine_image, self.workdir, job)
        try:
            cpu_ns = client_container_cpu(container)
            result = finish_client(container, self.workdir, job, self.seconds * 10 + 60)
        finally:
            container.remove(force=True)
        if result.status != "ok":
            raise SetupError(f"engine container run {result.status}: {result.error}")
        return result.throughput_ops_per_sec, result.operations, cpu_ns


def engine_cost(ctx: BenchContext, runtime, report: Report) -> None:
    """Measure the three sides against one Redis container and add the rows to `report`."""
    from contio.images.build import build

    (engine,) = [r for r in build(runtime.client, ["engine"]) if r.name == "engine"]
    _measure(ctx, runtime, report, engine.image_id)


def _measure(ctx: BenchContext, runtime, report: Report, engine_image: str) -> None:
    from contio.cells.bindings import bridge_address, engine_binding
    from contio.cells.engine_client import prepare_workdir
    from contio.images.build import build
    from contio.samplers.cgroup import ContainerCgroup
    from contio.targets import registry
    from contio.targets.base import TargetOptions

    build(runtime.client, ["redis"])
    target = registry.target("redis")
    server = target.start(runtime, "redis", TargetOptions())
    target.wait_ready(server, timeout_s=120)
    records = ctx.scaled(RECORDS, minimum=1000)
    seconds = ctx.scaled(SECONDS, minimum=2)
    host_args = ["-p", f"redis.host={bridge_address(server)}", "-p", "redis.port=6379",
                 "-p", f"recordcount={records}", "-p", "fieldlength=100"]  # fmt: skip
    bindings = {"container": engine_binding(target, server),
                "bridge": engine_binding(target, server, host_network=False)}  # fmt: skip
    samples: dict[str, list[Sample]] = {side: [] for side in SIDES}
    with tempfile.TemporaryDirectory(prefix="contio-bench-", dir=ctx.scratch()) as tmp:
        host_ctx = BenchContext(engine=static_engine(runtime, engine_image, Path(tmp)),
                                scale=ctx.scale, console=ctx.console)  # fmt: skip
        workdir = prepare_workdir(Path(tmp) / "cell")
        workload = str(workdir / "workloads" / "workloada")
        run_engine(host_ctx, ["load", "redis", "-P", workload, *host_args, "-threads", "4"])
        with PeerCgroup(server.attrs["State"]["Pid"]) as peer:
            ctx.progress(f"host engine in cgroup {peer.name} beside the containers, "
                         f"weight {peer.weight().strip()}")  # fmt: skip
            sides = Sides(runtime, engine_image, bindings, workdir, host_ctx, host_args,
                          peer, records, seconds)  # fmt: skip
            redis_cgroup = ContainerCgroup(server.id)
            for round_ in range(ctx.repeat):
                # Rotate the order, so no side always runs first (or after the same one).
                order = SIDES[round_ % 3 :] + SIDES[: round_ % 3]
                for side in order:
                    redis_before = redis_cgroup.read().cpu_ns
                    value, operations, client_ns = sides.run(side, round_)
                    redis_ns = redis_cgroup.read().cpu_ns - redis_before
                    sample = _sample(side, value, round_, seconds, client_ns, redis_ns, operations)
                    meta = sample.metadata
                    ctx.progress(
                        f"round {round_ + 1} {side}: {value:,.0f} ops/s, CPU per op: client "
                        f"{meta['client_cpu_us_per_op']:.1f} µs, redis "
                        f"{meta['redis_cpu_us_per_op']:.1f} µs"
                    )
                    samples[side].append(sample)
                    report.samples.append(sample)
    cost_rows(report, samples)
    report.notes.append(
        f"Redis (appendfsync everysec) in a container; {records} records of 10×100 B; "
        f"{seconds} s runs, {ctx.repeat} round(s) in rotating order, medians; one static "
        "engine binary. host (peer) = on the host in a cgroup beside the containers with "
        "their CPU weight; container (contio) = client container in the host's network "
        "namespace, as cells run it; bridge = client container with its own network "
        "namespace on the experiment's bridge (informational). All reach Redis at its "
        "bridge address (bridge: by name). CPU per op: client and Redis cgroups over the run."
    )


def _sample(
    side: str, value: float, round_: int, seconds: int, client_ns: int, redis_ns: int, ops: int
) -> Sample:
    meta = {
        "round": round_, "seconds": seconds, "load_after": os.getloadavg()[0],
        "client_cpu_us_per_op": client_ns / 1000 / max(ops, 1),
        "redis_cpu_us_per_op": redis_ns / 1000 / max(ops, 1),
    }  # fmt: skip
    tool = "host" if side == "host" else "contio"
    return Sample(tool, f"redis workloada {side}", "ops/s", value, "ops/s", meta)


def cost_rows(report: Report, samples: dict[str, list[Sample]]) -> None:
    """The judged ops/s ratio, the bridge client's (informational) and CPU per op."""

    def median(side: str, key: str | None = None) -> float:
        values = [s.value if key is None else s.metadata[key] for s in samples[side]]
        return statistics.median(values)

    host = median("host")
    report.rows.append(
        Row(case=CASE, metric="ops/s", unit="ops/s", contio=median("container"), peer=host,
            goal=f"ratio ≥ {GOAL}", passed=judge_ratio(median("container"), host, GOAL))
    )  # fmt: skip
    report.rows.append(
        Row(case=CASE, metric="ops/s, client on the bridge", unit="ops/s",
            contio=median("bridge"), peer=host)
    )  # fmt: skip
    for side, suffix in (("container", ""), ("bridge", ", client on the bridge")):
        for key, label in (("client_cpu_us_per_op", "client CPU per op"),
                           ("redis_cpu_us_per_op", "redis CPU per op")):  # fmt: skip
            report.rows.append(
                Row(case=CASE, metric=label + suffix, unit="µs",
                    contio=median(side, key), peer=median("host", key))
            )  # fmt: skip
