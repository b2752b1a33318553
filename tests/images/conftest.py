"""Fixtures of the image tests: a real Docker engine and the images built once per session."""

from __future__ import annotations

from collections.abc import Iterator

import docker
import pytest

from contio.containers.docker_engine import ensure_engine
from contio.images import registry
from contio.images.build import build
from contio.images.recipe import BuildResult


@pytest.fixture(scope="session")
def docker_client() -> Iterator[docker.DockerClient]:
    client = ensure_engine()
    yield client
    client.close()


@pytest.fixture(scope="session")
def first_builds(docker_client: docker.DockerClient) -> dict[str, BuildResult]:
    """Every image, built (or reused from an earlier session) once for the whole session."""
    return {result.name: result for result in build(docker_client, registry.names())}
