"""Each database target on the real dockerd, from contio's offline image: start with
caches minimal, a memory limit and data on a host path, become ready, create the YCSB
schema, keep a row written with the database's own client; and the server itself
reports the minimal-cache settings while its cgroup carries the memory limit.

One container per database serves every assertion about it (module-scoped fixture).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import pytest
from docker.models.containers import Container

from cell_fixtures import leak_checked_runtime
from contio.containers.docker_engine import ensure_engine
from contio.containers.docker_runtime import ContainerSpec, DataMount, DockerRuntime
from contio.errors import TargetNotReadyError
from contio.images.build import build
from contio.samplers.cgroup import ContainerCgroup
from contio.targets import registry
from contio.targets.base import (
    YCSB_PASSWORD,
    CacheMode,
    DatabaseTarget,
    TargetOptions,
    run_in,
)
from minimal_settings import MINIMAL_SETTINGS

pytestmark = pytest.mark.docker

VALUE = "contio-\u00e9t\u00e9-42"  # non-ASCII: the round trip must keep the bytes
MEM_LIMIT = "1g"


@dataclass
class Server:
    """One running database container of this module."""

    name: str
    target: DatabaseTarget
    container: Container
    data: Path


@pytest.fixture(scope="module")
def client() -> Iterator[docker.DockerClient]:
    client = ensure_engine()
    yield client
    client.close()


@pytest.fixture(scope="module")
def servers_runtime(client: docker.DockerClient) -> Iterator[DockerRuntime]:
    with leak_checked_runtime(client) as runtime:
        yield runtime


@pytest.fixture(scope="module", params=registry.offline_names())
def server(
    request: pytest.FixtureRequest,
    client: docker.DockerClient,
    servers_runtime: DockerRuntime,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    """The database started with caches minimal, a memory limit and a host data directory."""
    name = request.param
    target = registry.target(name)
    build(client, [target.recipe])  # reused when the recipe is unchanged
    data = tmp_path_factory.mktemp(name) / "data"
    options = TargetOptions(cache=CacheMode.MINIMAL, mem_limit=MEM_LIMIT)
    container = target.start(servers_runtime, f"db-{name}", options, host_path=data)
    try:
        target.wait_ready(container, timeout_s=240)
        target.create_schema(container)
        target.create_schema(container)  # idempotent
        yield Server(name, target, container, data)
    finally:
        container.remove(force=True, v=True)


@pytest.fixture
def runtime(client: docker.DockerClient) -> Iterator[DockerRuntime]:
    with leak_checked_runtime(client) as runtime:
        yield runtime


def _mariadb(target, container: Container) -> str:
    run_in(container, target.client(f"INSERT INTO usertable (YCSB_KEY, FIELD0) VALUES "
                                    f"('user1', '{VALUE}')", "ycsb"))  # fmt: skip
    return run_in(container, target.client("SELECT FIELD0 FROM usertable WHERE YCSB_KEY='user1'",
                                           "ycsb"))  # fmt: skip


def _postgres(target, container: Container) -> str:
    # The engine's account, over TCP with its password, as a client container would connect.
    url = "host=127.0.0.1 user=ycsb password=ycsb dbname=ycsb"
    psql = ["psql", url, "--no-align", "--tuples-only", "--set", "ON_ERROR_STOP=1", "--command"]
    run_in(
        container, [*psql, f"INSERT INTO usertable (YCSB_KEY, FIELD0) VALUES ('user1', '{VALUE}')"]
    )
    return run_in(container, [*psql, "SELECT FIELD0 FROM usertable WHERE YCSB_KEY = 'user1'"])


def _redis(target, container: Container) -> str:
    assert run_in(container, ["redis-cli", "HSET", "user1", "field0", VALUE]) == "1"
    return run_in(container, ["redis-cli", "--raw", "HGET", "user1", "field0"])


def _cassandra(target, container: Container) -> str:
    env = {"HOME": "/tmp"}
    run_in(container, target.client(f"INSERT INTO ycsb.usertable (y_id, field0) VALUES "
                                    f"('user1', '{VALUE}');"), env)  # fmt: skip
    output = run_in(container, target.client("SELECT field0 FROM ycsb.usertable "
                                             "WHERE y_id = 'user1';"), env)  # fmt: skip
    # cqlsh prints a table: the header, a rule of dashes, the value, then "(1 rows)".
    rows = [line.strip() for line in output.splitlines() if line.strip()]
    assert rows[-1] == "(1 rows)"
    rule = next(i for i, row in enumerate(rows) if row.startswith("---"))
    return rows[rule + 1]


def _ferretdb(target, container: Container) -> str:
    with target.client(container) as writer:
        writer.ycsb.usertable.insert_one({"_id": "user1", "field0": VALUE})
    with target.client(container) as reader:  # a second client reads it back
        return reader.ycsb.usertable.find_one({"_id": "user1"})["field0"]


ROUND_TRIP: dict[str, Callable[[DatabaseTarget, Container], str]] = {
    "mariadb": _mariadb,
    "postgres": _postgres,
    "redis": _redis,
    "cassandra": _cassandra,
    "ferretdb": _ferretdb,
}


def test_every_offline_target_has_a_round_trip_and_minimal_settings():
    assert sorted(registry.offline_names()) == sorted(ROUND_TRIP) == sorted(MINIMAL_SETTINGS)


def test_database_keeps_a_row_in_files_on_the_host_path(server: Server):
    assert ROUND_TRIP[server.name](server.target, server.container) == VALUE
    # The server wrote its files to the host path, as the server's own user.
    written = list(server.data.iterdir())
    assert written
    assert all(path.stat().st_uid == server.target.uid for path in written)
    host = server.container.attrs["HostConfig"]
    assert host["CapDrop"] == ["ALL"] and host["ReadonlyRootfs"] is True


def test_server_reports_the_minimal_cache_settings(server: Server):
    reported = server.target.effective_settings(server.container)
    expected = MINIMAL_SETTINGS[server.name]
    assert {name: reported.get(name) for name in expected} == expected


def test_the_memory_limit_is_on_the_container_cgroup(server: Server):
    assert server.container.attrs["HostConfig"]["Memory"] == 1024**3
    cgroup = ContainerCgroup(server.container.id)
    assert cgroup.memory_limit() == 1024**3
    reading = cgroup.read()  # what every sample carries, with its major faults so far
    assert reading.memory_limit_bytes == 1024**3 and reading.major_faults >= 0


@pytest.mark.parametrize("server", ["mariadb"], indirect=True)
def test_mariadb_answers_the_tcp_client_that_official_images_are_probed_with(server: Server):
    # The registry-image path (`ycsb` over TCP with MYSQL_PWD) against contio's server.
    argv = server.target.tcp_client("mariadb", "SELECT CURRENT_USER()")
    assert run_in(server.container, argv, {"MYSQL_PWD": YCSB_PASSWORD}) == "ycsb@%"


@pytest.mark.parametrize("server", ["ferretdb"], indirect=True)
def test_ferretdb_reads_by_id_through_the_index(server: Server):
    # contio/ferretdb fixes FerretDB 1.24's `_id` lookups, which scanned the table.
    with server.target.client(server.container) as client:
        plan = client.ycsb.usertable.find({"_id": "user1"}).explain()["queryPlanner"]["Plan"]
    assert any("USING INDEX" in step for step in plan), plan


def test_server_that_exits_gives_its_last_log_lines(runtime: DockerRuntime, client):
    target = registry.target("redis")
    build(client, [target.recipe])
    spec = target.container_spec("bad", _volume(runtime), TargetOptions())
    spec.command = ["--no-such-option", "1"]
    container = runtime.run(spec)
    with pytest.raises(TargetNotReadyError, match="exited") as error:
        target.wait_ready(container, timeout_s=60)
    assert "no-such-option" in str(error.value)


def test_data_can_live_on_a_named_volume(runtime: DockerRuntime, client):
    target = registry.target("redis")
    build(client, [target.recipe])
    container = target.start(runtime, "vol", TargetOptions(), volume="redis-data")
    target.wait_ready(container, timeout_s=60)
    assert _redis(target, container) == VALUE
    mounts = container.attrs["Mounts"]
    assert [m["Name"] for m in mounts] == [f"contio-{runtime.experiment}-redis-data"]


def _volume(runtime: DockerRuntime) -> DataMount:
    return DataMount(target="/data", volume=runtime.volume("bad").name)


def test_a_client_container_reaches_the_server_by_name(runtime: DockerRuntime, client):
    # What an engine client container does: connect over the experiment's network.
    target = registry.target("redis")
    build(client, [target.recipe])
    server = target.start(runtime, "server", TargetOptions(), volume="server-data")
    target.wait_ready(server, timeout_s=60)
    host, port = target.address(server)
    probe = runtime.run(
        ContainerSpec(
            name="client",
            image=target.image,
            role="client",
            entrypoint=["redis-cli", "-h", host, "-p", str(port)],
            command=["PING"],
        )
    )
    assert probe.wait(timeout=60)["StatusCode"] == 0
    assert probe.logs().strip() == b"PONG"
