"""contio-engine's `redis` target against go-ycsb on the same Redis (issue 14).

One Redis container (contio/redis, as the targets start it: append-only file fsynced
every second), and both clients on the host reaching it at its bridge address. Each
tool loads its own records once (their key names differ: go-ycsb prefixes the table,
`usertable/user…`), then, round after round, each cell — workloads A and C at 1 and 16
threads — runs both tools one after the other with the same properties (record count,
10 fields of 100 B, the workload file, `redis.datatype=hash`, which is go-ycsb's
default and contio's only layout) and the same operation count (go-ycsb ignores
`maxexecutiontime`). The order alternates between cells and rounds, so a drift of the
shared machine favours neither.

- ops/s: what each tool reports for its run phase (go-ycsb's final `TOTAL … OPS`,
  contio's `throughput_ops_per_sec`). Goal: contio ≥ 1.0 × go-ycsb.
- client CPU per operation: user + system time of the client process (its threads
  included), from `wait4` on the child, over the operations done — the same method for
  both; go-ycsb's start-up and contio's session set-up are inside it. Goal: contio ≤
  go-ycsb.
- Redis CPU per operation: the server container's cgroup over each run ÷ the
  operations. A client that makes the server work harder measures a different
  database, so the goal: contio ≤ 1.02 × go-ycsb.

Medians over the rounds (at least 3); the per-round ranges are in the notes.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from benchmarks.child import run_child
from benchmarks.containers import docker_runtime
from benchmarks.context import BenchContext, workload_file
from benchmarks.engine_run import run_engine
from benchmarks.errors import SetupError
from benchmarks.go_peers import GO_YCSB_VERSION, go_ycsb
from benchmarks.parsers import parse_go_ycsb_summary
from benchmarks.report import Report, Row, Sample, judge_ratio, paired_ratio_interval

NAME = "go_ycsb"
TITLE = f"Redis workloads A and C: contio-engine redis vs go-ycsb {GO_YCSB_VERSION}"
PEER = "go-ycsb"

WORKLOADS = ("workloada", "workloadc")
THREADS = (1, 16)
RECORDS = 100_000
FIELDS = {"fieldcount": "10", "fieldlength": "100"}
#: operations per run: about 6 s each on the quiet machine (≈ 10 k ops/s at 1 thread,
#: 50–70 k at 16)
OPERATIONS = {1: 60_000, 16: 300_000}
LOAD_THREADS = 8
MIN_ROUNDS = 3
RATIO_GOAL = 1.0
#: contio's Redis CPU per operation at most this many times go-ycsb's
REDIS_CPU_GOAL = 1.02
TIMEOUT_SECONDS = 900.0


@dataclass
class Cell:
    """One workload at one thread count."""

    workload: str
    threads: int

    @property
    def case(self) -> str:
        return f"{self.workload} threads={self.threads}"


@dataclass
class Clients:
    """How to run each tool against the one Redis server."""

    ctx: BenchContext
    address: str
    """host:port of Redis on the bridge"""
    records: int
    server: Any
    """the Redis container (for its cgroup's CPU time)"""

    def common(self) -> dict[str, str]:
        return {"recordcount": str(self.records), **FIELDS}

    def contio_args(self, phase: str, workload: str) -> list[str]:
        host, port = self.address.rsplit(":", 1)
        props = {"redis.host": host, "redis.port": port, **self.common()}
        args = [phase, "redis", "-P", str(workload_file(workload))]
        for key, value in props.items():
            args += ["-p", f"{key}={value}"]
        return args

    def go_ycsb_argv(self, phase: str, workload: str, extra: dict[str, str]) -> list[str]:
        props = {
            # contio's workload files name Java YCSB's class; go-ycsb calls it "core".
            "workload": "core",
            "redis.addr": self.address,
            "redis.datatype": "hash",
            # An ephemeral port for go-ycsb's pprof listener, so runs never collide on :6060.
            "debug.pprof": "127.0.0.1:0",
            **self.common(),
            **extra,
        }
        argv = [str(go_ycsb()), phase, "redis", "-P", str(workload_file(workload))]
        for key, value in props.items():
            argv += ["-p", f"{key}={value}"]
        return argv

    def load(self) -> None:
        """Each tool's records, once (their key names do not overlap)."""
        run_engine(
            self.ctx,
            [*self.contio_args("load", "workloada"), "-threads", str(LOAD_THREADS)],
            timeout=TIMEOUT_SECONDS,
        )
        argv = [*self.go_ycsb_argv("load", "workloada", {}), "--threads", str(LOAD_THREADS)]
        child = run_child(argv, timeout=TIMEOUT_SECONDS)
        if child.returncode != 0:
            raise SetupError(f"go-ycsb load exited with code {child.returncode}:\n{child.tail()}")
        summary = parse_go_ycsb_summary(child.stdout)
        loaded = summary.get("INSERT", {}).get("Count", 0)
        if int(loaded) != self.records or "INSERT_ERROR" in summary:
            raise SetupError(f"go-ycsb loaded {loaded:.0f} records of {self.records}")

    def redis_cpu_ns(self) -> int:
        from contio.samplers.cgroup import ContainerCgroup

        return ContainerCgroup(self.server.id).read().cpu_ns

    def run_contio(self, cell: Cell, ops: int) -> Sample:
        args = [*self.contio_args("run", cell.workload), "-p", f"operationcount={ops}",
                "-threads", str(cell.threads)]  # fmt: skip
        before = self.redis_cpu_ns()
        run = run_engine(self.ctx, args, timeout=TIMEOUT_SECONDS)
        redis_ns = self.redis_cpu_ns() - before
        by_type = run.document.get("operations_by_type", {})
        failed = sorted(name for name in by_type if name.endswith("-FAILED"))
        missing = by_type.get("READ", {}).get("returns", {}).get("NOT_FOUND", 0)
        if run.operations != ops or failed or missing:
            raise SetupError(
                f"contio-engine: {run.operations} of {ops} operations, failed {failed}, "
                f"{missing} reads not found"
            )
        return _sample("contio", cell, run.throughput, ops, run.child, redis_ns)

    def run_go_ycsb(self, cell: Cell, ops: int) -> Sample:
        argv = [*self.go_ycsb_argv("run", cell.workload, {"operationcount": str(ops)}),
                "--threads", str(cell.threads)]  # fmt: skip
        before = self.redis_cpu_ns()
        child = run_child(argv, timeout=TIMEOUT_SECONDS)
        redis_ns = self.redis_cpu_ns() - before
        if child.returncode != 0:
            raise SetupError(f"go-ycsb exited with code {child.returncode}:\n{child.tail()}")
        summary = parse_go_ycsb_summary(child.stdout)
        done = int(summary["TOTAL"].get("Count", 0))
        errors = sorted(op for op in summary if op.endswith("_ERROR"))
        if done != ops or errors:
            raise SetupError(f"go-ycsb: {done} of {ops} operations, errors {errors}")
        return _sample("go-ycsb", cell, summary["TOTAL"]["OPS"], ops, child, redis_ns)


def _sample(tool: str, cell: Cell, ops_per_sec: float, ops: int, child, redis_ns: int) -> Sample:
    return Sample(
        tool=tool,
        case=cell.case,
        metric="ops/s",
        value=ops_per_sec,
        unit="ops/s",
        metadata={
            "argv": child.argv,
            "operations": ops,
            "wall_seconds": child.wall_seconds,
            "cpu_seconds": child.cpu_seconds,
            "client_cpu_us_per_op": child.cpu_seconds * 1e6 / ops,
            "redis_cpu_us_per_op": redis_ns / 1000 / ops,
            "max_rss_kib": child.max_rss_kib,
            "load_before": child.load_before,
        },
    )


def cells() -> list[Cell]:
    """Every workload at every thread count, in the order they run within a round."""
    return [Cell(workload, threads) for workload in WORKLOADS for threads in THREADS]


def _measure(ctx: BenchContext, clients: Clients, report: Report) -> None:
    for round_ in range(ctx.rounds(MIN_ROUNDS)):
        for index, cell in enumerate(cells()):
            ops = ctx.scaled(OPERATIONS[cell.threads], minimum=1000)
            order = [clients.run_contio, clients.run_go_ycsb]
            if (index + round_) % 2:
                order.reverse()
            for measure in order:
                sample = measure(cell, ops)
                sample.metadata["round"] = round_
                report.samples.append(sample)
                meta = sample.metadata
                ctx.progress(
                    f"round {round_ + 1} {cell.case:22} {sample.tool:7} "
                    f"{sample.value / 1e3:7.1f} k ops/s  client {meta['client_cpu_us_per_op']:5.1f} "
                    f"µs/op  redis {meta['redis_cpu_us_per_op']:5.1f} µs/op  "
                    f"load {meta['load_before']:.1f}"
                )


TOOLS = ("contio", "go-ycsb")


def _values(samples: list[Sample], key: str | None) -> list[float]:
    """Each sample's value (key None) or one of its metadata figures."""
    return [s.value if key is None else float(s.metadata[key]) for s in samples]


def _span(samples: list[Sample], key: str | None, scale: float, digits: int) -> str:
    got = [v / scale for v in _values(samples, key)]
    return f"{min(got):.{digits}f}–{max(got):.{digits}f}"


def _by_round(samples: list[Sample], key: str | None) -> dict[int, float]:
    return dict(zip((s.metadata["round"] for s in samples), _values(samples, key), strict=True))


def _interval(by_tool: dict[str, list[Sample]], key: str | None) -> tuple[float, float] | None:
    """The 95 % interval of contio / go-ycsb over the rounds both finished."""
    ours, theirs = (_by_round(by_tool[tool], key) for tool in TOOLS)
    rounds = sorted(ours.keys() & theirs.keys())
    return paired_ratio_interval([ours[r] for r in rounds], [theirs[r] for r in rounds])


def _cell_rows(cell: Cell, by_tool: dict[str, list[Sample]]) -> tuple[list[Row], str]:
    def median(tool: str, key: str | None) -> float:
        return statistics.median(_values(by_tool[tool], key))

    ours, theirs = median("contio", None), median("go-ycsb", None)
    cpu = [median(tool, "client_cpu_us_per_op") for tool in TOOLS]
    redis = [median(tool, "redis_cpu_us_per_op") for tool in TOOLS]
    rows = [
        Row(case=cell.case, metric="ops/s", unit="ops/s", contio=ours, peer=theirs,
            goal=f"ratio ≥ {RATIO_GOAL:g}", passed=judge_ratio(ours, theirs, RATIO_GOAL),
            ratio_interval=_interval(by_tool, None)),
        Row(case=cell.case, metric="client CPU per op", unit="µs", contio=cpu[0], peer=cpu[1],
            goal="contio ≤ go-ycsb", passed=cpu[0] <= cpu[1],
            ratio_interval=_interval(by_tool, "client_cpu_us_per_op")),
        Row(case=cell.case, metric="redis CPU per op", unit="µs", contio=redis[0], peer=redis[1],
            goal=f"contio ≤ {REDIS_CPU_GOAL:g} × go-ycsb",
            passed=redis[0] <= REDIS_CPU_GOAL * redis[1],
            ratio_interval=_interval(by_tool, "redis_cpu_us_per_op")),
    ]  # fmt: skip
    contio, peer = by_tool["contio"], by_tool["go-ycsb"]
    note = (
        f"{cell.case}, {len(contio)} round(s): contio {_span(contio, None, 1e3, 1)} k vs "
        f"go-ycsb {_span(peer, None, 1e3, 1)} k ops/s; client CPU "
        f"{_span(contio, 'client_cpu_us_per_op', 1, 0)} vs "
        f"{_span(peer, 'client_cpu_us_per_op', 1, 0)} µs/op; Redis CPU "
        f"{_span(contio, 'redis_cpu_us_per_op', 1, 0)} vs "
        f"{_span(peer, 'redis_cpu_us_per_op', 1, 0)} µs/op"
    )
    return rows, note


def comparison_rows(samples: list[Sample]) -> tuple[list[Row], list[str]]:
    """Per cell, the medians over rounds as rows, and each cell's per-round ranges as notes.

    A cell only one tool finished (a run cut short) gives no rows.
    """
    rows: list[Row] = []
    notes: list[str] = []
    for cell in cells():
        by_tool = {t: [s for s in samples if s.tool == t and s.case == cell.case] for t in TOOLS}
        if all(by_tool.values()):
            cell_rows, note = _cell_rows(cell, by_tool)
            rows += cell_rows
            notes.append(note)
    return rows, notes


def run(ctx: BenchContext) -> Report:
    """Load both tools' records into one Redis, then the interleaved rounds; judge the goals."""
    from contio.cells.bindings import bridge_address
    from contio.images.build import build
    from contio.targets import registry
    from contio.targets.base import TargetOptions

    go_ycsb()  # SetupError before anything starts when the peer is not built
    report = Report(name=NAME, title=TITLE, peer=PEER)
    records = ctx.scaled(RECORDS, minimum=1000)
    runtime = docker_runtime()
    with runtime:
        build(runtime.client, ["redis"])
        target = registry.target("redis")
        server = target.start(runtime, "redis", TargetOptions())
        target.wait_ready(server, timeout_s=120)
        clients = Clients(ctx, f"{bridge_address(server)}:6379", records, server)
        try:
            clients.load()
            _measure(ctx, clients, report)
        except SetupError as exc:
            report.broken = str(exc)
    report.rows, notes = comparison_rows(report.samples)
    report.notes.append(
        f"Redis (contio/redis, appendfsync everysec) in a container, both clients on the host "
        f"at its bridge address; {records} records of 10×100 B per tool, redis.datatype=hash; "
        f"operationcount {', '.join(f'{ctx.scaled(v, minimum=1000)} at {t} thread(s)' for t, v in OPERATIONS.items())}; "
        f"{ctx.rounds(MIN_ROUNDS)} interleaved round(s), medians. Client CPU = user + system of "
        "the client process (wait4); Redis CPU = its container's cgroup."
    )
    report.notes.extend(notes)
    return report
