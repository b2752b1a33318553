"""The tenants a run finds in its coordinator are set aside and put back, through a real
coordinator's file and through its API over HTTP; a run killed in between loses none of
them, and the tenants it had set are not put back by the next."""

from __future__ import annotations

from contio.middleware.coordinator import Coordinator
from contio.middleware.http_api import CoordinatorClient, CoordinatorServer
from contio.middleware.store import Store
from contio.qos.policy import TenantShare
from contio.run.middleware_tenants import SET_ASIDE_FILE, SetAsideTenants

MB = 1_000_000


def _tenants(path) -> dict[str, TenantShare]:
    store = Store(path)
    try:
        return store.tenants()
    finally:
        store.close()


def test_a_killed_runs_file_gives_the_next_run_the_users_tenants_not_its_own(tmp_path):
    stored = tmp_path / "coordinator.sqlite"
    store = Store(stored)
    store.put_tenant(TenantShare("user", 10, reservation=2 * MB, limit_iops=300))
    store.put_setting("policy", "static")
    store.close()
    first = SetAsideTenants(tmp_path)
    assert first.from_store(stored) == ["user"]
    assert _tenants(stored) == {}
    first.ours(["run-app"])
    store = Store(stored)
    store.put_tenant(TenantShare("run-app", 50, limit=5 * MB))  # what the run set; then killed
    store.close()

    second = SetAsideTenants(tmp_path)  # the next run, reading the file the first left
    assert second.from_store(stored) == ["user"]
    assert _tenants(stored) == {}  # the killed run's tenant is gone, not set aside
    assert second.back_to_store(stored) == []
    back = _tenants(stored)
    assert back == {"user": TenantShare("user", 10, reservation=2 * MB, limit_iops=300)}
    assert not (tmp_path / SET_ASIDE_FILE).exists()
    store = Store(stored)
    assert store.setting("policy", "") == "static"
    store.close()


def test_tenants_set_aside_through_the_api_come_back_with_their_bounds(tmp_path):
    store = Store(tmp_path / "coordinator.sqlite")
    server = CoordinatorServer(("127.0.0.1", 0), Coordinator(store), "s3cret")
    server.serve_in_thread()
    try:
        client = CoordinatorClient(server.url, "s3cret")
        client.set_tenant("a", 20, reservation="500iops", limit="80MB/s")
        client.set_tenant("b", 70, reservation="5MB/s", limit="900iops")
        before = client.status()["tenants"]
        aside = SetAsideTenants(tmp_path)
        assert aside.from_coordinator(client) == ["a", "b"]
        assert client.status()["tenants"] == {}
        client.set_tenant("run-t1", 50)
        aside.ours(["run-t1"])
        client.remove_tenant("run-t1")  # the run's release
        assert aside.back_to_coordinator(client) == []
        assert client.status()["tenants"] == before
    finally:
        server.shutdown()
        server.server_close()
        store.close()
