"""The containers benchmark's peer cgroup, beside a real container's cgroup on dockerd."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from docker.models.containers import Container

from benchmarks.cgroup_peer import PeerCgroup, _memberships, _mounts
from benchmarks.child import run_child
from contio.containers.docker_runtime import ContainerSpec, DockerRuntime
from contio.images.build import build

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def container() -> Iterator[Container]:
    runtime = DockerRuntime(experiment=f"test-{uuid.uuid4().hex[:10]}")
    runtime.prepare()
    try:
        build(runtime.client, ["redis"])
        yield runtime.run(ContainerSpec(name="ref", image="contio/redis:latest", role="ref"))
    finally:
        runtime.close()


def test_a_program_started_through_the_launcher_runs_in_the_peer_cgroup(container: Container):
    container.reload()
    reference = _memberships(container.attrs["State"]["Pid"])
    with PeerCgroup(container.attrs["State"]["Pid"]) as peer:
        # The reference container's CPU weight, which Docker gives every container.
        assert peer.weight().strip() in ("1024", "100")
        before = peer.cpu_ns()
        script = "import sys; sum(range(3_000_000)); print(open('/proc/self/cgroup').read())"
        child = run_child([*peer.launcher(), "python3", "-c", script])
        assert child.returncode == 0, child.tail()
        assert peer.cpu_ns() > before  # its CPU time is counted there
        inside = _parse_cgroups(child.stdout)
        for controller, (_, directory) in peer.dirs.items():
            # Beside the container's own cgroup, in each CPU controller.
            assert inside[controller] == str(Path(reference[controller]).parent / peer.name)
            assert directory.is_dir()
    assert not any(directory.exists() for _, directory in peer.dirs.values())


def test_the_cgroup_hierarchies_are_found():
    mounts = _mounts()
    assert "cpu" in mounts or "" in mounts


def _parse_cgroups(text: str) -> dict[str, str]:
    """/proc/PID/cgroup text as controller → path ("" for the v2 tree)."""
    paths = {}
    for line in text.strip().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths
