"""contio-engine's TPC-C-like client against go-tpc on the same MariaDB (issue 14).

One MariaDB container (contio/mariadb, its default settings), both clients on the host
reaching it at its bridge address as the `ycsb` account. Each tool loads its own
database (`gotpc`, `contio_tpcc`: the table names are the spec's, so they cannot share
one) with the same warehouse count, once; then, round after round, each runs for the
same time with the same number of connections (go-tpc `-T N`, contio `-threads N`),
the order alternating so a drift of the shared machine favours neither.

- tpmC: New-Order transactions per minute as each tool reports it (go-tpc's `tpmC:`
  line, contio's `tpcc.tpmC`). Goal: contio ≥ 0.95 × go-tpc.
- client CPU per transaction: user + system time of the client process from `wait4`,
  over the transactions of all five types it completed (contio: the counts of its
  result's `operations_by_type`, `*-FAILED` left out). Goal: contio ≤ go-tpc.
- MariaDB CPU per transaction: its container's cgroup (informational).

An engine without the `tpcc` command (older than the workload) still gets go-tpc
measured, so the harness and the peer are checked, and contio's rows say *pending*.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from benchmarks.child import ChildResult, run_child
from benchmarks.containers import docker_runtime
from benchmarks.context import BenchContext
from benchmarks.engine_run import run_engine
from benchmarks.errors import SetupError
from benchmarks.go_peers import GO_TPC_VERSION, go_tpc
from benchmarks.parsers import parse_go_tpc_run
from benchmarks.report import Report, Row, Sample, judge_ratio

NAME = "go_tpc"
TITLE = f"TPC-C on MariaDB: contio-engine tpcc vs go-tpc {GO_TPC_VERSION}"
PEER = "go-tpc"

WAREHOUSES = 1
CONNECTIONS = 4
SECONDS = 30
MIN_ROUNDS = 3
LOAD_THREADS = 4
RATIO_GOAL = 0.95
DATABASES = {"contio": "contio_tpcc", "go-tpc": "gotpc"}
TOOLS = ("contio", "go-tpc")
TRANSACTIONS = ("NEW_ORDER", "PAYMENT", "ORDER_STATUS", "DELIVERY", "STOCK_LEVEL")
PENDING = "pending: contio-engine has no `tpcc` command yet"
TIMEOUT_SECONDS = 3600.0


def case() -> str:
    """The one cell's name in the table."""
    return f"tpcc warehouses={WAREHOUSES} connections={CONNECTIONS}"


def engine_has_tpcc(usage: str) -> bool:
    """Whether the engine's usage text (`contio-engine --help`) offers the `tpcc` command."""
    return any(word.strip("|[]") == "tpcc" for word in usage.split())


def _usage(ctx: BenchContext) -> str:
    child = run_child([str(ctx.engine), "--help"], timeout=60)
    return child.stdout + child.stderr


@dataclass
class Clients:
    """How to run each tool against the one MariaDB server."""

    ctx: BenchContext
    host: str
    server: Any
    """the MariaDB container (for its cgroup's CPU time)"""
    seconds: int

    def go_tpc_argv(self, command: str, *extra: str) -> list[str]:
        from contio.targets.base import YCSB_PASSWORD, YCSB_USER

        return [
            str(go_tpc()), "tpcc", command, "-d", "mysql", "-H", self.host, "-P", "3306",
            "-U", YCSB_USER, "-p", YCSB_PASSWORD, "-D", DATABASES["go-tpc"],
            "--warehouses", str(WAREHOUSES), *extra,
        ]  # fmt: skip

    def contio_args(self, phase: str, threads: int, *extra: str) -> list[str]:
        from contio.targets.base import YCSB_PASSWORD, YCSB_USER

        props = {
            "warehouses": str(WAREHOUSES),
            "mysql.host": self.host,
            "mysql.port": "3306",
            "mysql.user": YCSB_USER,
            "mysql.password": YCSB_PASSWORD,
            "mysql.database": DATABASES["contio"],
        }
        args = ["tpcc", phase, "mysql"]
        for key, value in props.items():
            args += ["-p", f"{key}={value}"]
        return [*args, *extra, "-threads", str(threads)]

    def load(self, with_contio: bool) -> None:
        """Each tool's database, once (go-tpc without its minutes-long consistency check)."""
        argv = self.go_tpc_argv("prepare", "--no-check", "-T", str(LOAD_THREADS))
        child = run_child(argv, timeout=TIMEOUT_SECONDS)
        if child.returncode != 0:
            raise SetupError(f"go-tpc prepare exited with code {child.returncode}:\n{child.tail()}")
        if with_contio:
            run_engine(self.ctx, self.contio_args("load", LOAD_THREADS), timeout=TIMEOUT_SECONDS)

    def server_cpu_ns(self) -> int:
        from contio.samplers.cgroup import ContainerCgroup

        return ContainerCgroup(self.server.id).read().cpu_ns

    def run_go_tpc(self) -> Sample:
        argv = self.go_tpc_argv("run", "-T", str(CONNECTIONS), "--time", f"{self.seconds}s")
        before = self.server_cpu_ns()
        child = run_child(argv, timeout=self.seconds * 10 + 120)
        server_ns = self.server_cpu_ns() - before
        if child.returncode != 0:
            raise SetupError(f"go-tpc run exited with code {child.returncode}:\n{child.tail()}")
        summary = parse_go_tpc_run(child.stdout)
        return _sample("go-tpc", summary.tpmc, summary.transactions, summary.failed, child,
                       server_ns)  # fmt: skip

    def run_contio(self) -> Sample:
        args = self.contio_args("run", CONNECTIONS, "-p", "operationcount=0",
                                "-p", f"maxexecutiontime={self.seconds}")  # fmt: skip
        before = self.server_cpu_ns()
        run = run_engine(self.ctx, args, timeout=self.seconds * 10 + 120)
        server_ns = self.server_cpu_ns() - before
        tpcc = run.document.get("tpcc") or {}
        if "tpmC" not in tpcc:
            raise SetupError("contio-engine's tpcc run document has no tpcc.tpmC")
        done = completed_transactions(run.document)
        failed = int(sum((tpcc.get("failed") or {}).values()))
        return _sample("contio", float(tpcc["tpmC"]), done, failed, run.child, server_ns)


def completed_transactions(document: dict[str, Any]) -> int:
    """The transactions of the five types a `tpcc run` document counts as done (its
    `operations_by_type`; the `NAME-FAILED` entries are the failed ones)."""
    by_type = document.get("operations_by_type") or {}
    return sum(int(by_type.get(name, {}).get("count", 0)) for name in TRANSACTIONS)


def _sample(
    tool: str, tpmc: float, done: int, failed: int, child: ChildResult, server_ns: int
) -> Sample:
    if done <= 0:
        raise SetupError(f"{tool} completed no transaction")
    return Sample(
        tool=tool,
        case=case(),
        metric="tpmC",
        value=tpmc,
        unit="tpmC",
        metadata={
            "argv": child.argv,
            "transactions": done,
            "failed": failed,
            "wall_seconds": child.wall_seconds,
            "cpu_seconds": child.cpu_seconds,
            "client_cpu_us_per_txn": child.cpu_seconds * 1e6 / done,
            "server_cpu_us_per_txn": server_ns / 1000 / done,
            "load_before": child.load_before,
        },
    )


def _median(samples: list[Sample], key: str | None) -> float | None:
    if not samples:
        return None
    return statistics.median(s.value if key is None else float(s.metadata[key]) for s in samples)


def comparison_rows(samples: list[Sample], pending: str | None) -> list[Row]:
    """Medians over the rounds; contio's cells empty and unjudged while `pending`."""
    by_tool = {tool: [s for s in samples if s.tool == tool] for tool in TOOLS}
    rows = []
    for metric, unit, key in (
        ("tpmC", "tpmC", None),
        ("client CPU per transaction", "µs", "client_cpu_us_per_txn"),
        ("mariadb CPU per transaction", "µs", "server_cpu_us_per_txn"),
    ):
        ours, theirs = _median(by_tool["contio"], key), _median(by_tool["go-tpc"], key)
        goal, passed = "", None
        if key is None:
            goal, passed = f"ratio ≥ {RATIO_GOAL:g}", judge_ratio(ours, theirs, RATIO_GOAL)
        elif key == "client_cpu_us_per_txn":
            goal = "contio ≤ go-tpc"
            passed = None if ours is None or theirs is None else ours <= theirs
        if pending and goal:
            goal = f"{goal} ({pending.split(':')[0]})"
        rows.append(Row(case=case(), metric=metric, unit=unit, contio=ours, peer=theirs,
                        goal=goal, passed=passed))  # fmt: skip
    return rows


def _measure(ctx: BenchContext, clients: Clients, report: Report, with_contio: bool) -> None:
    for round_ in range(ctx.rounds(MIN_ROUNDS)):
        order = [clients.run_contio, clients.run_go_tpc] if with_contio else [clients.run_go_tpc]
        if round_ % 2:
            order.reverse()
        for measure in order:
            sample = measure()
            sample.metadata["round"] = round_
            report.samples.append(sample)
            meta = sample.metadata
            ctx.progress(
                f"round {round_ + 1} {sample.tool:7} tpmC {sample.value:8.1f}  "
                f"{meta['transactions']} transactions ({meta['failed']} failed)  client "
                f"{meta['client_cpu_us_per_txn']:7.1f} µs/txn  mariadb "
                f"{meta['server_cpu_us_per_txn']:7.1f} µs/txn  load {meta['load_before']:.1f}"
            )


def _databases(target, server) -> None:
    """The two tools' databases, owned by the `ycsb` account (as the socket-authenticated
    `mysql` account, which contio's image has and which made `ycsb`)."""
    from contio.targets.base import YCSB_USER, run_in

    sql = "".join(
        f"CREATE DATABASE IF NOT EXISTS {name}; GRANT ALL ON {name}.* TO '{YCSB_USER}'@'%';"
        for name in DATABASES.values()
    )
    run_in(server, target.client(sql))


def run(ctx: BenchContext) -> Report:
    """Load both databases, then the interleaved rounds (go-tpc alone while contio is pending)."""
    from contio.cells.bindings import bridge_address
    from contio.images.build import build
    from contio.targets import registry
    from contio.targets.base import TargetOptions

    go_tpc()  # SetupError before anything starts when the peer is not built
    pending = None if engine_has_tpcc(_usage(ctx)) else PENDING
    report = Report(name=NAME, title=TITLE, peer=PEER)
    seconds = ctx.scaled(SECONDS, minimum=3)
    runtime = docker_runtime()
    with runtime:
        build(runtime.client, ["mariadb"])
        target = registry.target("mariadb")
        server = target.start(runtime, "mariadb", TargetOptions())
        target.wait_ready(server, timeout_s=300)
        target.create_schema(server)
        _databases(target, server)
        clients = Clients(ctx, bridge_address(server), server, seconds)
        try:
            clients.load(with_contio=pending is None)
            _measure(ctx, clients, report, with_contio=pending is None)
        except SetupError as exc:
            report.broken = str(exc)
    report.rows = comparison_rows(report.samples, pending)
    report.notes.append(
        f"MariaDB (contio/mariadb, default settings) in a container, both clients on the host "
        f"at its bridge address; {WAREHOUSES} warehouse(s), one database per tool; "
        f"{CONNECTIONS} connections, {seconds} s runs, {ctx.rounds(MIN_ROUNDS)} interleaved "
        "round(s), medians. Client CPU = user + system of the client process (wait4), per transaction "
        "completed (all five types); MariaDB CPU = its container's cgroup."
    )
    if pending:
        report.notes.append(f"contio: {pending}; go-tpc measured alone, nothing judged.")
    return report
