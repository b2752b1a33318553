"""DockerRuntime against the real dockerd: least privilege, labels, teardown, interrupts, sweep."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from cell_fixtures import labelled, leak_checked_runtime
from contio.containers import labels
from contio.containers.data_location import DockerVolume
from contio.containers.docker_engine import ensure_engine
from contio.containers.docker_runtime import ContainerSpec, DockerRuntime
from contio.containers.sweep import sweep_leftovers
from contio.images.build import build

pytestmark = pytest.mark.docker

BASE = "contio/debian:bookworm"


@pytest.fixture(scope="module")
def client() -> Iterator[docker.DockerClient]:
    client = ensure_engine()
    build(client, ["debian"])  # reused when already built
    yield client
    client.close()


def _nothing_left(client: docker.DockerClient, experiment: str) -> bool:
    return not any(labelled(client, experiment).values())


@pytest.fixture
def runtime(client: docker.DockerClient) -> Iterator[DockerRuntime]:
    with leak_checked_runtime(client) as runtime:
        yield runtime


def _sleeper(name: str = "sleeper") -> ContainerSpec:
    return ContainerSpec(name=name, image=BASE, role="test", command=["sleep", "infinity"])


def test_container_runs_with_least_privilege_and_labels(runtime: DockerRuntime):
    container = runtime.run(_sleeper())
    container.reload()
    host = container.attrs["HostConfig"]
    assert container.status == "running"
    assert host["Privileged"] is False
    assert host["CapDrop"] == ["ALL"]
    assert not host["CapAdd"]
    assert host["ReadonlyRootfs"] is True
    assert "no-new-privileges" in host["SecurityOpt"]
    assert host["NetworkMode"] == f"contio-{runtime.experiment}"
    assert container.labels[labels.EXPERIMENT] == runtime.experiment
    assert container.labels[labels.ROLE] == "test"
    assert container.labels[labels.PID] == str(os.getpid())
    # The read-only root really refuses writes.
    code, _ = container.exec_run(["touch", "/etc/contio-test"])
    assert code != 0


def test_teardown_removes_containers_networks_and_volumes(
    client: docker.DockerClient, runtime: DockerRuntime
):
    runtime.run(_sleeper("a"))
    runtime.run(_sleeper("b"))
    volume = runtime.volume("data")
    assert volume.attrs["Labels"][labels.EXPERIMENT] == runtime.experiment
    found = labelled(client, runtime.experiment)
    assert len(found["containers"]) == 2
    assert len(found["networks"]) == 1
    assert len(found["volumes"]) == 1

    removed = runtime.teardown()

    assert sorted(removed.containers) == sorted(
        f"contio-{runtime.experiment}-{n}" for n in ("a", "b")
    )
    assert removed.networks == [f"contio-{runtime.experiment}"]
    assert removed.volumes == [f"contio-{runtime.experiment}-data"]
    assert _nothing_left(client, runtime.experiment)


def test_a_backends_volume_keeps_its_driver_options_and_gets_the_experiment_label(
    client: docker.DockerClient, runtime: DockerRuntime
):
    # A local-driver volume on tmpfs: driver options as a backend would define them.
    definition = DockerVolume(
        name=f"contio-test-{uuid.uuid4().hex[:8]}",
        driver_opts={"type": "tmpfs", "device": "tmpfs", "o": "size=1m"},
        labels={"contio.backend": "local-test"},
    )
    volume = runtime.backend_volume(definition)
    assert volume.name == definition.name
    assert volume.attrs["Options"] == definition.driver_opts
    assert volume.attrs["Labels"]["contio.backend"] == "local-test"
    assert volume.attrs["Labels"][labels.EXPERIMENT] == runtime.experiment
    assert runtime.teardown().volumes == [definition.name]  # found by the experiment label
    assert _nothing_left(client, runtime.experiment)


def test_memory_limit_disables_swap(runtime: DockerRuntime):
    spec = _sleeper()
    spec.mem_limit = "256m"
    container = runtime.run(spec)
    host = container.attrs["HostConfig"]
    assert host["Memory"] == 256 * 1024 * 1024
    assert host["MemorySwap"] == host["Memory"]


CHILD = textwrap.dedent(
    """
    import signal, sys
    from pathlib import Path
    from contio.errors import Interrupted
    from contio.containers.docker_runtime import ContainerSpec, DockerRuntime
    from contio.signals import interrupts_raise

    experiment, results = sys.argv[1], Path(sys.argv[2])
    try:
        with interrupts_raise(), DockerRuntime(experiment=experiment) as runtime:
            runtime.volume("data")
            runtime.run(ContainerSpec(name="db", image="contio/debian:bookworm", role="test",
                                      command=["sleep", "infinity"]))
            results.write_text("completed cell\\n")  # a result finished before the signal
            print("READY", flush=True)
            while True:
                signal.pause()
    except Interrupted as exc:
        print(f"INTERRUPTED {exc.signum}", flush=True)
        sys.exit(130)
    """
)


def test_sigterm_removes_containers_and_keeps_results(client: docker.DockerClient, tmp_path: Path):
    experiment = f"test-{uuid.uuid4().hex[:10]}"
    results = tmp_path / "results.txt"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, experiment, str(results)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY"
        assert len(labelled(client, experiment)["containers"]) == 1

        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            DockerRuntime(experiment=experiment).prepare()  # the sweep removes what it left

    assert child.returncode == 130
    assert f"INTERRUPTED {int(signal.SIGTERM)}" in out
    assert _nothing_left(client, experiment)
    assert results.read_text() == "completed cell\n"


def _dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_startup_sweep_removes_leftovers_of_dead_owners_only(client: docker.DockerClient):
    dead = labels.Owner(host=socket.gethostname(), pid=_dead_pid(), start="1")
    alive = labels.Owner.current()
    crashed, running = (f"test-{uuid.uuid4().hex[:10]}" for _ in range(2))
    client.containers.create(
        BASE, ["sleep", "infinity"], labels=labels.resource_labels(crashed, "test", dead)
    )
    client.volumes.create(labels=labels.resource_labels(crashed, "data", dead))
    client.networks.create(f"contio-{crashed}", labels=labels.resource_labels(crashed, "n", dead))
    client.containers.create(
        BASE, ["sleep", "infinity"], labels=labels.resource_labels(running, "test", alive)
    )
    try:
        removed = sweep_leftovers(client)
        assert _nothing_left(client, crashed)
        assert len(removed.containers) >= 1 and f"contio-{crashed}" in removed.networks
        assert len(labelled(client, running)["containers"]) == 1
    finally:
        for container in labelled(client, running)["containers"]:
            container.remove(force=True)


def test_reused_pid_counts_as_dead():
    me = labels.Owner.current()
    assert me.is_alive()
    assert not labels.Owner(host=me.host, pid=me.pid, start="not-my-start-time").is_alive()
    assert labels.Owner(host="some-other-host", pid=1, start="x").is_alive()
