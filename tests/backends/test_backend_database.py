"""A real database container keeps its data on a backend: Redis (append-only file, fsync
on every write) with its data directory on XFS on a loop device, and on a dispersed
Gluster volume through the FUSE mount. A first container writes 1000 hashes; a second
container on the same directory loads them back from the backend's file and every
value is checked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from cell_fixtures import leak_checked_runtime
from contio.backends import registry
from contio.backends.interface import StorageBackend
from contio.containers.data_location import HostPath
from contio.containers.docker_engine import ensure_engine
from contio.containers.docker_runtime import DockerRuntime
from contio.images.build import build
from contio.targets import registry as targets
from contio.targets.base import CacheMode, TargetOptions, run_in

pytestmark = pytest.mark.docker

KEYS = 1000
# One script call writes every hash; Redis logs each HSET it makes to the append-only
# file (and fsyncs it, appendfsync always), so the file on the backend holds them all.
WRITE = f"for i=1,{KEYS} do redis.call('HSET','user'..i,'field0','value-'..i) end return {KEYS}"
# Counts the hashes whose value is the one written.
CHECK = (
    f"local n=0 for i=1,{KEYS} do "
    "if redis.call('HGET','user'..i,'field0')=='value-'..i then n=n+1 end end return n"
)
OPTIONS = TargetOptions(cache=CacheMode.MINIMAL, mem_limit="256m")


@pytest.fixture(scope="module")
def docker_client() -> Iterator[docker.DockerClient]:
    client = ensure_engine()
    build(client, [targets.target("redis").recipe])  # reused while the recipe is unchanged
    yield client
    client.close()


@pytest.fixture
def runtime(docker_client: docker.DockerClient) -> Iterator[DockerRuntime]:
    with leak_checked_runtime(docker_client) as runtime:
        yield runtime


def redis_round_trip(runtime: DockerRuntime, backend: StorageBackend) -> list[Path]:
    """Writes through one container, reads back through a new one; returns the AOF files."""
    location = backend.data_location("redis")
    assert isinstance(location, HostPath)
    redis = targets.target("redis")
    writer = redis.start(runtime, "writer", OPTIONS, host_path=location.path)
    redis.wait_ready(writer, timeout_s=120)
    assert run_in(writer, ["redis-cli", "EVAL", WRITE, "0"]) == str(KEYS)
    writer.stop(timeout=30)  # SIGTERM: Redis fsyncs and closes its file
    files = [p for p in location.path.rglob("*") if p.is_file() and p.stat().st_size > 0]
    reader = redis.start(runtime, "reader", OPTIONS, host_path=location.path)
    redis.wait_ready(reader, timeout_s=120)  # PONG only once the file is loaded
    assert run_in(reader, ["redis-cli", "EVAL", CHECK, "0"]) == str(KEYS)
    return files


def test_redis_on_loop_xfs(state_dir, no_leaks, runtime):
    backend = registry.create(
        "local", {"mode": "device", "device": "loop", "format": "xfs", "loop_size": "512MiB"}
    )
    with backend:
        try:
            files = redis_round_trip(runtime, backend)
            assert backend.describe()["mount"]["fstype"] == "xfs"
        finally:
            runtime.teardown()  # the containers let go of the mount before it is removed
    assert any(".aof" in p.name for p in files), files


def test_redis_on_a_dispersed_gluster_volume(gluster_cluster, no_leaks, runtime):
    backend = registry.create("gluster", {"volume_type": "dispersed", "cluster": gluster_cluster})
    with backend:
        try:
            files = redis_round_trip(runtime, backend)
            assert backend.describe()["mount"]["fstype"] == "fuse.glusterfs"
        finally:
            runtime.teardown()
    assert any(".aof" in p.name for p in files), files
