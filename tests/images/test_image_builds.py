"""Offline image builds on the real dockerd: every recipe builds, and is reused when unchanged."""

from __future__ import annotations

import uuid

import docker
import pytest

from contio.containers import labels
from contio.errors import ImageBuildError, UsageError
from contio.images import registry
from contio.images.build import build
from contio.images.recipe import BuildResult, Recipe, existing_image, require_program

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("name", registry.names())
def test_image_carries_its_recipe_hash_and_is_reused(
    name: str, docker_client: docker.DockerClient, first_builds: dict[str, BuildResult]
):
    first = first_builds[name]
    image = docker_client.images.get(first.tag)
    assert image.id == first.image_id
    assert image.labels[labels.RECIPE_HASH] == first.recipe_hash
    assert image.labels[labels.RECIPE_NAME] == name

    again = {result.name: result for result in build(docker_client, [name])}

    assert again[name].built is False
    assert again[name].image_id == first.image_id
    assert again[name].recipe_hash == first.recipe_hash


def test_dependencies_build_first(first_builds: dict[str, BuildResult]):
    order = list(first_builds)
    assert order.index("debian") < order.index("jre") < order.index("cassandra")
    assert order.index("debian") < order.index("mariadb")


def test_base_image_is_debian_bookworm(docker_client: docker.DockerClient, first_builds):
    output = docker_client.containers.run(
        first_builds["debian"].tag, ["cat", "/etc/os-release"], remove=True
    )
    assert b"VERSION_CODENAME=bookworm" in output


def test_engine_image_runs_the_static_binary(docker_client: docker.DockerClient, first_builds):
    image = docker_client.images.get(first_builds["engine"].tag)
    assert image.attrs["Config"]["User"] == "65534:65534"
    assert image.attrs["Config"]["Entrypoint"] == ["/contio-engine"]
    container = docker_client.containers.run(image.id, ["--version"], detach=True)
    try:
        status = container.wait(timeout=60)
        # The static binary ran on the image's Debian and printed its version.
        assert status["StatusCode"] == 0
        assert container.logs().startswith(b"contio-engine ")
    finally:
        container.remove(force=True)
    # The engine drives the real fio for fio jobs: the image has it.
    fio = docker_client.containers.run(image.id, ["fio", "--version"], detach=True)
    try:
        assert fio.wait(timeout=60)["StatusCode"] == 0
        assert fio.logs().startswith(b"fio-3.")
    finally:
        fio.remove(force=True)


class _Probe(Recipe):
    """A throw-away recipe; `version` changes its Dockerfile text."""

    name = "probe"
    depends = ("debian",)

    def __init__(self, marker: str, version: str):
        self.marker = marker
        self.version = version

    @property
    def tag(self) -> str:
        return f"contio/test-probe-{self.marker}:latest"

    def dockerfile(self) -> str:
        return f"FROM contio/debian:bookworm\nLABEL probe={self.version}\n"


def test_changed_recipe_is_rebuilt(docker_client: docker.DockerClient, first_builds):
    marker = uuid.uuid4().hex[:8]
    parents = {"debian": first_builds["debian"].recipe_hash}
    old, new = _Probe(marker, "v1"), _Probe(marker, "v2")
    old_hash, new_hash = old.recipe_hash({}, parents), new.recipe_hash({}, parents)
    assert old_hash != new_hash
    built = []
    try:
        built.append(old.build_image(docker_client, {}, {labels.RECIPE_HASH: old_hash}))
        assert existing_image(docker_client, old.tag, old_hash) == built[0]
        # The changed recipe does not match the image under its tag: it is built anew.
        assert existing_image(docker_client, new.tag, new_hash) is None
        built.append(new.build_image(docker_client, {}, {labels.RECIPE_HASH: new_hash}))
        assert built[1] != built[0]
        assert existing_image(docker_client, new.tag, new_hash) == built[1]
    finally:
        for image_id in built:
            docker_client.images.remove(image_id, force=True)


def test_unknown_image_name_lists_the_known_ones():
    with pytest.raises(UsageError, match="known images: ") as raised:
        registry.recipe("no-such-image")
    for name in ("debian", "engine", "redis", "cassandra"):
        assert name in str(raised.value)


def test_missing_build_tool_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ImageBuildError, match="`go` not found on PATH; it is needed to build"):
        require_program("go", "to build FerretDB from the Go module proxy")
