"""Which static engine `contio/engine` is made from, and what happens without one: an
installed static engine is used as it is (no source tree needed), an image built before
is reused, and only without any does the build fail, saying how to get a static engine."""

from __future__ import annotations

import sys
from pathlib import Path

import docker
import pytest

from contio.containers import labels
from contio.errors import RecipeInputsUnavailable
from contio.images import engine as engine_recipe
from contio.images.build import build
from contio.images.engine import is_static, static_engine

# The interpreter is a dynamically linked executable on every host these tests run on.
DYNAMIC = Path(sys.executable).resolve()


def test_an_installed_static_engine_is_used_without_a_source_tree(engine: Path):
    if not is_static(engine):
        pytest.skip(f"{engine} is not static (CONTIO_ENGINE names a glibc build)")
    assert static_engine(None, engine) == engine


def test_no_static_engine_and_no_source_tree_says_how_to_get_one():
    assert not is_static(DYNAMIC)
    with pytest.raises(RecipeInputsUnavailable) as refused:
        static_engine(None, DYNAMIC)
    message = str(refused.value)
    assert f"the installed {DYNAMIC} is dynamically linked" in message
    assert "rustup target add x86_64-unknown-linux-musl" in message
    with pytest.raises(RecipeInputsUnavailable, match="none is installed"):
        static_engine(None, None)


@pytest.mark.docker
def test_an_engine_image_built_before_is_reused_when_no_static_engine_can_be_had(
    docker_client: docker.DockerClient, monkeypatch
):
    # The engine's image is built on contio/debian, which comes back first.
    first = _engine(build(docker_client, ["engine"]))  # built or reused, with the engine found
    # This host as a wheel without the musl target would leave it: a dynamic engine, no
    # checkout (the tests run from one, so the search for it is what is replaced).
    monkeypatch.setattr(engine_recipe, "source_tree", lambda: None)
    monkeypatch.setenv("CONTIO_ENGINE", str(DYNAMIC))
    result = _engine(build(docker_client, ["engine"]))
    assert result.built is False and result.checked is False
    # By label, not id: another worktree's build may have moved the tag meanwhile.
    reused = docker_client.images.get(result.image_id)
    assert reused.labels[labels.RECIPE_NAME] == "engine"
    assert result.recipe_hash == reused.labels[labels.RECIPE_HASH]
    assert result.tag == first.tag


def _engine(results):
    """The engine's result among those of the images it depends on."""
    [engine] = [result for result in results if result.name == "engine"]
    return engine
