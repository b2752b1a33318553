"""setup-docker.sh and connecting to the engine, against the real dockerd."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contio.containers.docker_engine import (
    SETUP_SCRIPT,
    connect,
    engine_reachable,
    ensure_engine,
    resolve_runtime,
)
from contio.errors import RuntimeUnavailableError

pytestmark = pytest.mark.docker

REPO = Path(__file__).resolve().parents[2]


def _dockerd_pids() -> list[str]:
    done = subprocess.run(["pgrep", "-x", "dockerd"], capture_output=True, text=True, check=False)
    return done.stdout.split()


def test_setup_docker_is_idempotent():
    for _ in range(2):
        done = subprocess.run(
            [str(REPO / "scripts" / "setup-docker.sh")],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    # A second run found the engine answering and started no second daemon.
    assert len(_dockerd_pids()) == 1
    assert "starting dockerd" not in done.stdout
    assert engine_reachable()


def test_packaged_script_is_the_one_ensure_engine_runs():
    assert SETUP_SCRIPT.is_file()
    client = ensure_engine()
    try:
        assert client.ping()
    finally:
        client.close()


def test_unreachable_engine_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-such-docker.sock")
    with pytest.raises(RuntimeUnavailableError, match=r"the engine DOCKER_HOST names .* does not"):
        connect()
    assert not engine_reachable()
    # Without permission to start one, ensure_engine says so instead of starting dockerd.
    with pytest.raises(RuntimeUnavailableError, match="runtime: process"):
        ensure_engine(start=False)


def test_runtime_choice_follows_the_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    assert resolve_runtime("docker") == "docker"
    assert resolve_runtime(None) == "docker"  # an engine answers here
    assert resolve_runtime("process") == "process"
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-such-docker.sock")
    # No engine answers at DOCKER_HOST: the default falls back to local processes ...
    assert resolve_runtime(None) == "process"
    with pytest.raises(ValueError, match="allowed: docker, process"):
        resolve_runtime("podman")
