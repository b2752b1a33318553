"""Each database target on the real dockerd: start with data on a host path, become ready,
create the YCSB schema, and keep a row written with the database's own client.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import docker
import pytest
from docker.models.containers import Container

from contio.errors import TargetNotReadyError
from contio.images.build import build
from contio.runtime import labels
from contio.runtime.docker import ContainerSpec, DataMount, DockerRuntime
from contio.runtime.docker_engine import ensure_engine
from contio.targets import registry
from contio.targets.base import CacheMode, DatabaseTarget, TargetOptions, run_in

pytestmark = pytest.mark.docker

VALUE = "contio-\u00e9t\u00e9-42"  # non-ASCII: the round trip must keep the bytes


@pytest.fixture(scope="module")
def client() -> Iterator[docker.DockerClient]:
    client = ensure_engine()
    yield client
    client.close()


@pytest.fixture
def runtime(client: docker.DockerClient) -> Iterator[DockerRuntime]:
    runtime = DockerRuntime(experiment=f"test-{uuid.uuid4().hex[:10]}")
    runtime.prepare()
    try:
        yield runtime
    finally:
        runtime.close()
    left = client.containers.list(
        all=True, filters={"label": f"{labels.EXPERIMENT}={runtime.experiment}"}
    )
    assert not left


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


def test_every_target_has_a_round_trip():
    assert sorted(registry.names()) == sorted(ROUND_TRIP)


@pytest.mark.parametrize("name", registry.names())
def test_database_starts_on_a_host_path_and_keeps_a_row(
    name: str, client: docker.DockerClient, runtime: DockerRuntime, tmp_path: Path
):
    target = registry.target(name)
    build(client, [target.recipe])  # reused when the recipe is unchanged
    data = tmp_path / "data"
    options = TargetOptions(cache=CacheMode.MINIMAL, mem_limit="1g")

    container = target.start(runtime, "db", options, host_path=data)
    target.wait_ready(container, timeout_s=240)
    target.create_schema(container)
    target.create_schema(container)  # idempotent

    assert ROUND_TRIP[name](target, container) == VALUE
    # The server wrote its files to the host path, as the server's own user.
    written = list(data.iterdir())
    assert written
    assert all(path.stat().st_uid == target.uid for path in written)
    host = container.attrs["HostConfig"]
    assert host["Memory"] == 1024**3
    assert host["CapDrop"] == ["ALL"] and host["ReadonlyRootfs"] is True


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
