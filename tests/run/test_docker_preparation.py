"""Docker resolution before a run: which cells need it, which images, and the hold that
keeps a run's images from being removed by a rebuild elsewhere (real dockerd)."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import docker.errors
import pytest

from cell_fixtures import docker_client, engine_image  # noqa: F401
from contio.containers import labels
from contio.containers.sweep import remove_experiment
from contio.errors import RuntimeRequiredError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.run.docker_preparation import (
    HOLD_ROLE,
    database_targets,
    docker_cells,
    hold_image,
    plan_docker,
    runtime_field,
)

SPEC = """
name: s
factors:
  target: [lsm, redis, postgres]
  workload: [workloada]
  runtime: [process, docker]
exclude: [{target: redis, runtime: process}, {target: postgres, runtime: process}]
"""


def test_the_cells_under_docker_and_their_databases():
    spec = parse_spec_text(SPEC, "s.yaml", Path.cwd())
    cells = expand(spec)
    assert [c.level["runtime"] for c in docker_cells(cells)] == ["docker"] * 3
    assert database_targets(cells) == ["redis", "postgres"]
    assert runtime_field(spec) == "factors.runtime[1]"
    plain = parse_spec_text(SPEC.replace("  runtime: [process, docker]\n", ""), "s", Path.cwd())
    assert plan_docker(plain, [c for c in expand(plain) if c.level["target"] == "lsm"]) is None


def test_a_target_without_an_offline_image_needs_a_registry_image(monkeypatch):
    from contio.run import docker_preparation as docker_setup

    spec = parse_spec_text(SPEC, "s.yaml", Path.cwd())
    monkeypatch.setattr(docker_setup, "_recipe_of", lambda t: None if t == "redis" else t)
    with pytest.raises(RuntimeRequiredError, match=r"target_options.redis.image: 'redis' has"):
        plan_docker(spec, expand(spec))


@pytest.mark.docker
def test_a_held_image_cannot_be_removed_until_the_run_lets_it_go(docker_client, engine_image):  # noqa: F811
    # A throwaway image of our own (a label on the engine image), never a shared one.
    dockerfile = f"FROM {engine_image}\nLABEL contio.test={uuid.uuid4().hex}\n".encode()
    image, _ = docker_client.images.build(fileobj=io.BytesIO(dockerfile), rm=True)
    experiment = f"test-{uuid.uuid4().hex[:8]}"
    try:
        hold_image(docker_client, experiment, "engine", image.id)
        [held] = docker_client.containers.list(
            all=True, filters={"label": f"{labels.EXPERIMENT}={experiment}"}
        )
        assert held.labels[labels.ROLE] == HOLD_ROLE and held.status == "created"
        with pytest.raises(docker.errors.APIError) as refused:
            docker_client.images.remove(image.id)  # what a rebuild elsewhere would try
        assert refused.value.status_code == 409
    finally:
        remove_experiment(docker_client, experiment)
    docker_client.images.remove(image.id)  # let go: removable again
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(image.id)
