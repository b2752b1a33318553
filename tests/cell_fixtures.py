"""Fixtures of the tests that run the engine as a client container next to real
databases (tests/targets/test_engine_bindings.py, tests/cell/); imported by their
conftest files."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import docker
import pytest

from contio.containers import labels
from contio.containers.docker_engine import ensure_engine
from contio.containers.docker_runtime import DockerRuntime
from contio.containers.sweep import remove_experiment
from contio.images.build import build
from contio.run.docker_preparation import hold_image


@pytest.fixture(scope="session")
def docker_client() -> Iterator[docker.DockerClient]:
    client = ensure_engine()
    yield client
    client.close()


@pytest.fixture(scope="session")
def engine_image(docker_client: docker.DockerClient) -> Iterator[str]:
    """The id of `contio/engine` built from this tree (reused while its recipe is unchanged).

    Containers are started by id and the image is held for the session (a created
    container of it, `contio.run.docker_preparation.hold_image`), so a build from another tree that
    moves `contio/engine:latest` meanwhile neither changes nor removes what these tests
    run (Docker refuses to remove an image a container refers to).
    """
    (engine,) = [r for r in build(docker_client, ["engine"]) if r.name == "engine"]
    session = f"test-{uuid.uuid4().hex[:10]}"
    hold_image(docker_client, session, "engine", engine.image_id)
    yield engine.image_id
    remove_experiment(docker_client, session)


def database_image(docker_client: docker.DockerClient, recipe: str) -> None:
    """Build (or reuse) a database image."""
    build(docker_client, [recipe])


def labelled(client: docker.DockerClient, experiment: str) -> dict[str, list]:
    """The containers, networks and volumes labelled with `experiment`."""
    selector = {"label": f"{labels.EXPERIMENT}={experiment}"}
    return {
        "containers": client.containers.list(all=True, filters=selector),
        "networks": client.networks.list(filters=selector),
        "volumes": client.volumes.list(filters=selector),
    }


@contextmanager
def leak_checked_runtime(client: docker.DockerClient) -> Iterator[DockerRuntime]:
    """A prepared runtime of a fresh test experiment; once closed, nothing labelled with
    the experiment (container, network, volume) may be left."""
    runtime = DockerRuntime(experiment=f"test-{uuid.uuid4().hex[:10]}")
    runtime.prepare()
    try:
        yield runtime
    finally:
        runtime.close()
    left = {kind: found for kind, found in labelled(client, runtime.experiment).items() if found}
    assert not left, f"left behind: {left}"


@pytest.fixture
def cell_runtime(docker_client: docker.DockerClient) -> Iterator[DockerRuntime]:
    """A runtime for one test; afterwards nothing labelled with its experiment is left."""
    with leak_checked_runtime(docker_client) as runtime:
        yield runtime
