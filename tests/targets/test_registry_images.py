"""Database targets with registry images (`TargetOptions.image`: `mysql:5.7`, `postgres:15`,
`redis:7`, `cassandra:3.11`, `mongo:4.0`, …): the container specs, probe and schema
commands, and the parsing of what those servers report.

No registry is reachable here, so these images cannot be pulled and run: the commands a
target would execute are recorded by `RecordingContainer`, a stand-in for a container
of such an image. Where the same code path serves contio's own images (Redis, the
PostgreSQL probe, MariaDB's TCP client, the MongoDB-protocol probe and schema through
pymongo), test_database_targets.py runs it against a real server.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from contio.cells.bindings import engine_binding
from contio.containers import labels
from contio.containers.docker_runtime import DataMount
from contio.errors import UsageError
from contio.targets import registry
from contio.targets.base import (
    CONTIO,
    REGISTRY_UID,
    YCSB_PASSWORD,
    CacheMode,
    TargetOptions,
    repository_name,
)
from contio.targets.cassandra import nodetool_caches
from contio.targets.mongodb import CACHE_SETTING, wiredtiger_settings

MINIMAL = CacheMode.MINIMAL
DATA = DataMount(target="/data", volume="v")


@dataclass
class RecordingContainer:
    """Stands in for a running container of `image`: records each exec, answers `output`."""

    image: str
    env: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    output: bytes = b""
    name: str = "contio-exp-db"
    calls: list[tuple[list[str], dict[str, str] | None]] = field(default_factory=list)

    @property
    def attrs(self) -> dict:
        env = [f"{key}={value}" for key, value in self.env.items()]
        networks = {"contio-exp": {"IPAddress": "172.18.0.2"}}
        return {"Config": {"Image": self.image, "Env": env},
                "NetworkSettings": {"Networks": networks}}  # fmt: skip

    def reload(self) -> None:
        pass

    def exec_run(self, argv, environment=None):
        self.calls.append((list(argv), environment))
        return 0, self.output


def spec(target_name: str, image: str | None, cache: CacheMode = CacheMode.DEFAULT):
    target = registry.target(target_name)
    return target.container_spec("db", DATA, TargetOptions(cache=cache, image=image))


@pytest.mark.parametrize(
    ("reference", "name"),
    [
        ("mysql:5.7", "mysql"),
        ("mariadb", "mariadb"),
        ("docker.io/library/postgres:15-alpine", "postgres"),
        ("registry.local:5000/team/cassandra:3.11@sha256:abc", "cassandra"),
    ],
)
def test_repository_name_drops_registry_path_tag_and_digest(reference: str, name: str):
    assert repository_name(reference) == name


@pytest.mark.parametrize("name", registry.offline_names())
def test_contio_image_is_the_default_and_built_from_its_recipe(name: str):
    target = registry.target(name)
    assert target.family(None) == target.family(target.image) == CONTIO
    assert target.recipe_for(TargetOptions()) == target.recipe
    assert spec(name, None).user == f"{target.uid}:{target.uid}"


@pytest.mark.parametrize(
    ("name", "image"),
    [("mariadb", "mysql:5.7"), ("postgres", "postgres:15"), ("redis", "redis:7"),
     ("cassandra", "cassandra:3.11"), ("mongodb", "mongo:4.0")],
)  # fmt: skip
def test_registry_image_runs_as_the_official_uid_and_is_not_built(name: str, image: str):
    target = registry.target(name)
    options = TargetOptions(image=image)
    assert target.recipe_for(options) is None
    container = spec(name, image)
    assert container.image == image
    # As the official images' own user: their entrypoints skip chown and gosu, no capability.
    assert container.user == f"{REGISTRY_UID}:{REGISTRY_UID}"
    assert target.server_uid(options) == REGISTRY_UID


def test_container_family_comes_from_the_recipe_label_or_the_image_name():
    target = registry.target("mariadb")
    contio = RecordingContainer("sha256:1234", labels={labels.RECIPE_NAME: "mariadb"})
    assert target.container_family(contio) == CONTIO
    assert target.container_family(RecordingContainer("mysql:8.0")) == "mysql"


def test_mysql_image_gets_its_database_and_user_from_the_environment():
    container = spec("mariadb", "mysql:5.7", MINIMAL)
    assert container.environment == {
        "MYSQL_RANDOM_ROOT_PASSWORD": "yes", "MYSQL_DATABASE": "ycsb",
        "MYSQL_USER": "ycsb", "MYSQL_PASSWORD": YCSB_PASSWORD,
    }  # fmt: skip
    # MySQL 8 has no query cache: `loose-` keeps it starting.
    assert "--loose-query-cache-type=0" in container.command
    assert "--innodb-flush-method=O_DIRECT" in container.command
    assert container.tmpfs["/run/mysqld"].endswith(f"uid={REGISTRY_UID},gid={REGISTRY_UID}")
    assert container.read_only is True


def test_mariadb_image_gets_the_mariadb_variables_too():
    env = spec("mariadb", "mariadb:11.4").environment
    assert env["MARIADB_USER"] == env["MYSQL_USER"] == "ycsb"
    assert env["MARIADB_RANDOM_ROOT_PASSWORD"] == "yes"


@pytest.mark.parametrize(("image", "program"), [("mysql:5.7", "mysql"), ("mariadb:11", "mariadb")])
def test_official_mysql_images_are_probed_over_tcp_as_ycsb(image: str, program: str):
    target = registry.target("mariadb")
    container = RecordingContainer(image)
    assert target.probe(container).ready
    target.create_schema(container)
    (probe, probe_env), (schema, schema_env) = container.calls
    # TCP: the entrypoint's temporary set-up server listens on the socket only.
    assert probe[:3] == [program, "--protocol=TCP", "--host=127.0.0.1"]
    assert "--user=ycsb" in probe and probe[-1] == "SELECT 1"
    assert probe_env == schema_env == {"MYSQL_PWD": YCSB_PASSWORD}
    # `ycsb` owns the database the entrypoint made: only the table is created.
    assert schema[-1].startswith("CREATE TABLE IF NOT EXISTS ycsb.usertable")
    assert "CREATE USER" not in schema[-1]


def test_mysql_settings_are_asked_with_show_variables():
    target = registry.target("mariadb")
    container = RecordingContainer("mysql:8.0", output=b"innodb_buffer_pool_size\t6291456\n")
    assert target.effective_settings(container) == {"innodb_buffer_pool_size": "6291456"}
    assert container.calls[0][0][-1].startswith("SHOW GLOBAL VARIABLES WHERE Variable_name IN")


def test_postgres_image_gets_a_superuser_password_and_a_fixed_pgdata():
    container = spec("postgres", "postgres:18", MINIMAL)
    env = container.environment
    assert len(env["POSTGRES_PASSWORD"]) >= 24  # random, never used: contio uses the socket
    assert env["PGDATA"] == "/var/lib/postgresql/data"
    # Starts with "-": the entrypoint runs `postgres` with them.
    assert container.command == ["-c", "shared_buffers=1MB", "-c", "effective_cache_size=1MB"]
    assert "/run/postgresql" in container.tmpfs


def test_postgres_probe_asks_over_tcp_first():
    target = registry.target("postgres")
    container = RecordingContainer("postgres:15")
    assert target.probe(container).ready
    assert container.calls[0][0] == ["pg_isready", "--host", "127.0.0.1", "--quiet"]


def test_redis_image_takes_the_same_arguments():
    assert spec("redis", "redis:7", MINIMAL).command == spec("redis", None, MINIMAL).command
    assert spec("redis", "redis:7").environment == {}


def test_cassandra_image_is_configured_by_its_entrypoint_variables():
    container = spec("cassandra", "cassandra:3.11", MINIMAL)
    # The official entrypoint edits cassandra.yaml in place.
    assert container.read_only is False
    env = container.environment
    assert env["MAX_HEAP_SIZE"] == "512M" and env["HEAP_NEWSIZE"] == "128M"
    assert "-Dcassandra.settings.key_cache_size=0MiB" in env["JVM_EXTRA_OPTS"]
    assert "-Dcassandra.config.allow_system_properties=true" in env["JVM_EXTRA_OPTS"]
    assert container.command == []  # the image's own `cassandra -f`
    assert "JVM_EXTRA_OPTS" not in spec("cassandra", "cassandra:3.11").environment


@pytest.mark.parametrize(("cache", "nodetool"), [(MINIMAL, True), (CacheMode.DEFAULT, False)])
def test_cassandra_image_sets_cache_capacities_with_nodetool_when_minimal(cache, nodetool):
    target = registry.target("cassandra")
    env = spec("cassandra", "cassandra:3.11", cache).environment
    container = RecordingContainer("cassandra:3.11", env=env)
    target.create_schema(container)
    commands = [argv for argv, _ in container.calls]
    assert commands[0][0] == "cqlsh"
    assert (["nodetool", "setcachecapacity", "0", "0", "0"] in commands) is nodetool


NODETOOL_INFO = """\
ID                     : 3f1b
Key Cache              : entries 0, size 0 bytes, capacity 0 bytes, 0 hits, 0 requests, NaN recent hit rate, 14400 save period in seconds
Row Cache              : entries 0, size 0 bytes, capacity 0 bytes, 0 hits, 0 requests, NaN recent hit rate, 0 save period in seconds
Counter Cache          : entries 0, size 0 bytes, capacity 0 bytes, 0 hits, 0 requests, NaN recent hit rate, 7200 save period in seconds
Chunk Cache            : entries 16, size 1 MiB, capacity 91 MiB, 20 misses, 36 requests, 0.444 recent hit rate, 120.000 microseconds miss latency
Heap Memory (MB)       : 101.77 / 512.00
"""


def test_cassandra_image_settings_come_from_nodetool_info():
    target = registry.target("cassandra")
    container = RecordingContainer("cassandra:3.11", output=NODETOOL_INFO.encode())
    assert target.effective_settings(container) == {
        "Key Cache capacity": "0 bytes", "Row Cache capacity": "0 bytes",
        "Counter Cache capacity": "0 bytes", "Chunk Cache capacity": "91 MiB",
    }  # fmt: skip
    assert container.calls[0][0] == ["nodetool", "info"]
    assert nodetool_caches("no caches here") == {}


def test_mongodb_without_an_image_is_refused_before_anything_runs():
    target = registry.target("mongodb")
    with pytest.raises(UsageError, match=r"'mongodb' has no offline image.*TargetOptions.image"):
        target.container_spec("db", DATA, TargetOptions())
    assert "mongodb" in registry.names() and "mongodb" not in registry.offline_names()


def test_mongodb_image_runs_mongod_with_the_smallest_wiredtiger_cache():
    container = spec("mongodb", "mongo:4.0", MINIMAL)
    assert container.command == ["--wiredTigerCacheSizeGB", "0.25"]
    assert spec("mongodb", "mongo:4.0").command == []  # the image's own `mongod`
    assert registry.target("mongodb").data_dir == "/data/db"


def test_mongodb_settings_come_from_server_status():
    status = {"wiredTiger": {"cache": {"maximum bytes configured": 268435456.0}}}
    assert wiredtiger_settings(status) == {CACHE_SETTING: "268435456"}
    assert wiredtiger_settings({}) == {}


def test_mongodb_is_driven_by_the_engines_mongodb_binding():
    target, container = registry.target("mongodb"), RecordingContainer("mongo:7")
    binding = engine_binding(target, container)
    assert binding.target == "mongodb" and binding.host_network
    # From the host's network namespace, at the server's bridge address.
    assert binding.properties["mongodb.url"].startswith("mongodb://172.18.0.2:27017/ycsb?")
    bridged = engine_binding(target, container, host_network=False)
    assert bridged.properties["mongodb.url"].startswith("mongodb://contio-exp-db:27017/ycsb?")


@pytest.mark.parametrize("name", registry.offline_names())
def test_a_pinned_build_of_contios_image_runs_as_contios_image(name):
    """A run pins the image it built by id (`TargetOptions.image_id`): the server still
    runs as contio's image expects (its own uid), not as a registry image would."""
    target = registry.target(name)
    pinned = TargetOptions(image_id="sha256:0123abcd")
    spec = target.container_spec("db", DATA, pinned)
    assert spec.image == "sha256:0123abcd"
    assert target.recipe_for(pinned) == target.recipe
    assert spec.user == f"{target.uid}:{target.uid}"
    named = TargetOptions(image="mysql:5.7", image_id="sha256:0123abcd")
    assert target.server_uid(named) == REGISTRY_UID
