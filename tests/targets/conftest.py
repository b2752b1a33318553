"""Fixtures of the target tests that need the engine's client container."""

from cell_fixtures import cell_runtime, docker_client, engine_image  # noqa: F401
