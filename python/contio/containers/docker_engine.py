"""Reaching a Docker engine: start one when allowed, or say clearly why there is none.

`ensure_engine()` runs `setup-docker.sh` (shipped inside this package, so an installed
contio can run it too), which installs Debian's docker.io and starts dockerd when
needed, then connects with the Docker SDK. `engine_reachable()` only probes, for
choosing the default runtime without side effects.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import docker
import docker.errors

from contio.errors import RuntimeUnavailableError

SETUP_SCRIPT = Path(__file__).with_name("setup-docker.sh")
# The engine may be slow to answer while it loads images from disk on a busy machine.
PING_TIMEOUT_S = 30
LOCAL_SOCKET = "unix:///var/run/docker.sock"


def connect() -> docker.DockerClient:
    """A client of the engine named by DOCKER_HOST (or the default socket) that answered a ping.

    Raises RuntimeUnavailableError when nothing answers.
    """
    try:
        client = docker.from_env(timeout=PING_TIMEOUT_S)
        client.ping()
    except docker.errors.DockerException as exc:
        if not local_engine():
            raise RuntimeUnavailableError(
                f"the engine DOCKER_HOST names ({os.environ['DOCKER_HOST']}) does not answer "
                f"({exc}); start it, or unset DOCKER_HOST to use this host's, or use "
                "`runtime: process`"
            ) from exc
        raise RuntimeUnavailableError(
            f"no Docker engine answers ({exc}); start one with scripts/setup-docker.sh "
            "(as root), or use `runtime: process`"
        ) from exc
    return client


def engine_reachable() -> bool:
    """Whether a Docker engine answers now. Never starts one."""
    try:
        connect().close()
    except RuntimeUnavailableError:
        return False
    return True


def local_engine() -> bool:
    """Whether the engine asked for is this host's own (`DOCKER_HOST` unset or the default
    socket), the only one contio may start."""
    return os.environ.get("DOCKER_HOST", LOCAL_SOCKET) in ("", LOCAL_SOCKET)


def ensure_engine(start: bool = True) -> docker.DockerClient:
    """A connected client, after installing and starting dockerd when `start` allows it.

    Starting needs root and applies to this host's engine only (not to a `DOCKER_HOST`
    elsewhere); otherwise an engine must already run. Raises RuntimeUnavailableError
    naming the reason and dockerd's last log lines.
    """
    if start and os.geteuid() == 0 and local_engine() and not engine_reachable():
        result = subprocess.run(
            ["bash", str(SETUP_SCRIPT)], capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            raise RuntimeUnavailableError(
                f"could not start a Docker engine ({SETUP_SCRIPT} exited "
                f"{result.returncode}):\n{result.stderr.strip()}"
            )
    return connect()


def resolve_runtime(demanded: str | None) -> str:
    """The runtime to use: "docker" or "process".

    `demanded` is a runtime name ("docker", "process" or None for no preference).
    "docker" starts an engine when needed and raises RuntimeUnavailableError when none
    can be had; None picks Docker only when an engine already answers. (`contio run`
    does not call this: a spec's runtime is `process` unless it asks for `docker`, and
    `contio.run.docker_preparation` reaches the engine for the cells that do.)
    """
    if demanded == "process":
        return "process"
    if demanded == "docker":
        ensure_engine().close()
        return "docker"
    if demanded is not None:
        raise ValueError(f"unknown runtime {demanded!r}; allowed: docker, process")
    return "docker" if engine_reachable() else "process"
