"""Fixtures of the CLI tests that check what `contio run` left on the Docker engine."""

from cell_fixtures import docker_client  # noqa: F401
