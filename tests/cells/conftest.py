"""Fixtures of the cell tests: Docker, a runtime per test, and the engine's client container."""

from cell_fixtures import cell_runtime, docker_client, engine_image  # noqa: F401
