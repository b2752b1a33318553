"""The coordinator over real HTTP on localhost, its state in a real SQLite file: signed
requests only, the policies' shares per node, a restart that loses nothing, stale nodes,
and bad input named by field."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import time

import pytest

from contio.errors import AuthError, CoordinatorUnreachable, QosConfigError
from contio.middleware import auth
from contio.middleware.coordinator import STALE_INTERVALS, Coordinator, DiskReport
from contio.middleware.http_api import CoordinatorClient, CoordinatorServer
from contio.middleware.store import Store

MB = 1_000_000
SECRET = "s3cret"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def serve(tmp_path, clock):
    servers = []

    def start() -> CoordinatorClient:
        store = Store(tmp_path / "coordinator.sqlite")
        server = CoordinatorServer(("127.0.0.1", 0), Coordinator(store, clock=clock), SECRET)
        server.serve_in_thread()
        servers.append((server, store))
        return CoordinatorClient(server.url, SECRET)

    def stop() -> None:
        while servers:
            server, store = servers.pop()
            server.shutdown()
            server.server_close()
            store.close()

    start.stop = stop  # type: ignore[attr-defined]
    yield start
    stop()


def test_only_requests_signed_with_the_clusters_secret_change_anything(serve):
    client = serve()
    intruder = CoordinatorClient(client.url, "guessed")
    with pytest.raises(AuthError, match="bad signature"):
        intruder.set_tenant("evil", 100)
    with pytest.raises(AuthError):
        intruder.status()
    assert client.status()["tenants"] == {}


def test_static_policy_is_algorithm_1_per_node_over_the_active_tenants(serve):
    client = serve()
    client.set_policy("static")
    for name, priority in (("paraview", 8), ("bg1", 4), ("bg2", 8)):
        client.set_tenant(name, priority)
    busy = {"paraview": 50 * MB, "bg1": 50 * MB, "bg2": 50 * MB}
    shares = client.report("node1", 200 * MB, busy)["shares_bps"]
    assert shares == pytest.approx({"paraview": 80 * MB, "bg1": 40 * MB, "bg2": 80 * MB})
    # bg2 goes idle everywhere: the others share node1 by 8 : 4.
    shares = client.report("node1", 200 * MB, {"paraview": 50 * MB, "bg1": 50 * MB})["shares_bps"]
    assert shares["paraview"] == pytest.approx(200 * MB * 8 / 12)
    # A tenant active on another node counts as active here too (the coordinator's view).
    client.report("node2", 100 * MB, {"bg2": 30 * MB})
    shares = client.report("node1", 200 * MB, {"paraview": 50 * MB, "bg1": 50 * MB})["shares_bps"]
    assert shares["paraview"] == pytest.approx(80 * MB)


def test_work_conserving_lends_an_idle_tenants_share(serve):
    client = serve()
    client.set_tenant("a", 50)
    client.set_tenant("b", 50)
    both = client.report("n", 100 * MB, {"a": 50 * MB, "b": 50 * MB})["shares_bps"]
    assert both == pytest.approx({"a": 50 * MB, "b": 50 * MB})
    answer = client.report("n", 100 * MB, {"a": 0.0, "b": 50 * MB})
    status = client.status()["nodes"]["n"]["tenants"]
    lent = {t: status[t]["target_bps"] for t in ("a", "b")}
    assert lent["b"] > 90 * MB and lent["a"] + lent["b"] == pytest.approx(100 * MB)
    assert status["b"]["share_of_node"] == pytest.approx(0.5)
    # The throttles: b's share, and for idle a the share it would have if busy (its
    # allowance), not the probe it is accounted with; weights by priority.
    assert answer["shares_bps"] == pytest.approx({"a": 50 * MB, "b": lent["b"]})
    assert status["a"]["throttle_bps"] == pytest.approx(50 * MB)
    assert answer["weights"] == {"a": 500, "b": 500}
    moves = client.moves()
    assert {(m["tenant"], m["new_bps"]) for m in moves} >= {("b", lent["b"]), ("a", lent["a"])}


def test_a_saturated_disk_lowers_the_capacity_divided_and_an_idle_one_raises_it(serve):
    client = serve()
    client.set_tenant("a", 4)
    client.set_tenant("b", 8)
    greedy = {"a": 30 * MB, "b": 60 * MB}
    first = client.report("n", 100 * MB, greedy, DiskReport(1.0, 90 * MB))["shares_bps"]
    assert sum(first.values()) == pytest.approx(95 * MB)  # halfway from 100 to 90
    assert first["b"] / first["a"] == pytest.approx(2)
    for _ in range(10):
        shares = client.report("n", 100 * MB, greedy, DiskReport(1.0, 90 * MB))["shares_bps"]
    assert sum(shares.values()) == pytest.approx(90 * MB, rel=0.001)
    assert client.status()["nodes"]["n"]["effective_bps"] == pytest.approx(90 * MB, rel=0.001)
    idle = client.report("n", 100 * MB, greedy, DiskReport(0.5, 45 * MB))["shares_bps"]
    assert sum(idle.values()) > sum(shares.values())
    # An agent that sends no disk report gets shares of the calibrated capacity.
    plain = client.report("n", 100 * MB, greedy)["shares_bps"]
    assert sum(plain.values()) == pytest.approx(100 * MB)


def test_a_restart_keeps_tenants_policy_and_the_shares_in_force(serve):
    client = serve()
    client.set_policy("static")
    client.set_tenant("a", 10, reservation="5MB/s", limit="60MB/s")
    client.set_tenant("b", 10, limit="300iops")
    client.report("n", 100 * MB, {"a": 10 * MB})
    serve.stop()
    client = serve()
    status = client.status()
    assert status["policy"] == "static"
    assert status["tenants"]["a"] == {
        "priority": 10,
        "reservation_bps": 5 * MB,
        "limit_bps": 60 * MB,
        "reservation_iops": 0,
        "limit_iops": None,
    }
    assert status["tenants"]["b"]["limit_iops"] == 300
    assert status["nodes"]["n"]["tenants"]["a"]["target_bps"] == pytest.approx(60 * MB)


def test_a_coordinator_file_from_before_iops_bounds_opens_with_them_unset(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE tenants (name TEXT PRIMARY KEY, priority INTEGER NOT NULL,"
            " reservation REAL NOT NULL DEFAULT 0, rate_limit REAL)"
        )
        db.execute("INSERT INTO tenants VALUES ('a', 10, 5e6, NULL)")
    store = Store(path)
    try:
        [tenant] = store.tenants().values()
        assert (tenant.reservation, tenant.reservation_iops, tenant.limit_iops) == (5e6, 0, None)
    finally:
        store.close()


def test_a_node_that_stops_reporting_is_stale_and_no_longer_makes_its_tenants_active(serve, clock):
    client = serve()
    client.set_policy("static")
    client.set_tenant("a", 50)
    client.set_tenant("b", 50)
    client.report("dead", 100 * MB, {"b": 80 * MB})
    shares = client.report("live", 100 * MB, {"a": 80 * MB})["shares_bps"]
    assert shares["a"] == pytest.approx(50 * MB)  # b is active on `dead`
    clock.now += STALE_INTERVALS * 1.0 + 0.5
    shares = client.report("live", 100 * MB, {"a": 80 * MB})["shares_bps"]
    assert shares["a"] == pytest.approx(100 * MB)
    nodes = client.status()["nodes"]
    assert nodes["dead"]["stale"] and not nodes["live"]["stale"]


def test_iops_bounds_are_priced_at_each_tenants_measured_bytes_per_io(serve):
    client = serve()
    client.set_tenant("db", 50, reservation="1000iops")
    client.set_tenant("scan", 50, limit="200iops")
    client.set_tenant("plain", 50)
    before = client.report("n", 100 * MB, {})
    # Not measured yet: the reservation at 4 KiB per I/O; the limit is the kernel's alone.
    assert before["limits_iops"] == {"scan": 200}
    # db reads 16 KiB requests, scan 1 MiB ones: 1000 × 16 KiB reserved, 200 MiB/s the cap.
    busy = {"db": 16 * MB, "scan": 90 * MB, "plain": 60 * MB}
    ios = {"db": 16 * MB / 16384, "scan": 90 * MB / 2**20, "plain": 60 * MB / 65536}
    shares = client.report("n", 100 * MB, busy, used_iops=ios)["shares_bps"]
    assert shares["db"] >= 1000 * 16384
    status = client.status()
    assert status["nodes"]["n"]["tenants"]["scan"]["io_bytes"] == pytest.approx(2**20)
    assert status["tenants"]["db"]["reservation_iops"] == 1000
    # 20 iops of 1 MiB caps scan below its fair third.
    client.set_tenant("scan", 50, limit="20iops")
    capped = client.report("n", 100 * MB, busy, used_iops=ios)
    assert capped["shares_bps"]["scan"] == pytest.approx(20 * 2**20)
    assert capped["limits_iops"] == {"scan": 20}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: c.set_tenant("t", 0), r"tenants\.t\.priority: must be an integer 1–100"),
        (lambda c: c.set_tenant("t", 5, limit="fast"), r"t\.limit: must be"),
        (lambda c: c.set_policy("work_conserving"),
         r"policy: must be one of static, work-conserving, not 'work_conserving'"),
        (lambda c: c.remove_tenant("ghost"), r"tenant: no tenant 'ghost' \(tenants: a\)"),
        (lambda c: c.set_tenant("b", 5, reservation="150MB/s"),
         r"tenants\.b\.reservation: \(1\.5e\+08\) is above the node's capacity"),
        (lambda c: c.report("n", "lots", {}), r"capacity_bps: must be a finite number"),
        (lambda c: c.report("n", 1e8, {}, DiskReport(1.5)), r"disk\.utilization: must be 0–1"),
        (lambda c: c.set_tenant("t", 5, reservation="900iops", limit="500iops"),
         r"tenants\.t\.limit: \(500 iops\) is below the reservation \(900 iops\)"),
        (lambda c: c.report("n", 1e8, {}, used_iops={"a": "many"}),
         r"used_iops\.a: must be a finite number"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_naming_the_field_and_nothing_changes(serve, call, message):
    client = serve()
    client.set_tenant("a", 5)
    client.report("n", 100 * MB, {})
    before = client.status()
    with pytest.raises(QosConfigError, match=message):
        call(client)
    after = client.status()
    assert after["tenants"] == before["tenants"] and after["policy"] == before["policy"]


def test_no_coordinator_is_a_clear_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(CoordinatorUnreachable, match=f"no coordinator at http://127.0.0.1:{port}"):
        CoordinatorClient(f"http://127.0.0.1:{port}", SECRET, timeout=2).status()


def test_a_signed_request_is_refused_once_replayed_and_after_the_allowed_skew(monkeypatch):
    body = b'{"policy": "static"}'
    headers = auth.sign(SECRET, "PUT", "/v1/policy", body)

    def verify(length: int, guard: auth.ReplayGuard) -> str:
        return auth.verify_headers(SECRET, "PUT", "/v1/policy", length, headers, guard)

    auth.verify_body(body, verify(len(body), auth.ReplayGuard()))  # fresh: fine
    with pytest.raises(AuthError, match="does not match"):
        auth.verify_body(b'{"policy": "work-conserving"}', verify(len(body), auth.ReplayGuard()))
    with pytest.raises(AuthError, match="bad signature"):  # the length is signed too
        verify(len(body) + 1, auth.ReplayGuard())
    guard = auth.ReplayGuard()
    verify(len(body), guard)
    with pytest.raises(AuthError, match="replayed"):
        verify(len(body), guard)
    later = time.time() + auth.MAX_SKEW + 5
    monkeypatch.setattr(time, "time", lambda: later)
    with pytest.raises(AuthError, match="off this clock"):
        auth.verify_headers(SECRET, "PUT", "/v1/policy", len(body), headers, auth.ReplayGuard())


def test_the_cli_refuses_bad_middleware_input_before_touching_a_cluster(tmp_path):
    def contio(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "contio", "qos", *args, "--cluster", "nosuch"]
        return subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, check=False)

    bad_capacity = contio("up", "--capacity", "fast")
    assert bad_capacity.returncode == 2 and "--capacity: must be" in bad_capacity.stderr
    not_up = contio("status")
    assert not_up.returncode == 2 and "not up on cluster 'nosuch'" in not_up.stderr
    # Input the command line can judge alone is refused before the cluster is looked up.
    priority = contio("set", "t1", "--priority", "101")
    assert priority.returncode == 2 and "--priority" in priority.stderr
    assert "1<=x<=100" in priority.stderr, priority.stderr
    misspelt = contio("policy", "work-conserve")
    assert misspelt.returncode == 2 and "'static', 'work-conserving'" in misspelt.stderr
