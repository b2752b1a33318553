"""Where a container's (or a local process's) data is: a host directory bind-mounted into
it, or a Docker named volume that the runtime creates. Storage backends hand these out
(`Backend.data_location`); the runtimes mount them."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class HostPath(BaseModel):
    """A directory on the container host; a container gets it as a bind mount."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    kind: Literal["host-path"] = "host-path"
    path: Path


class DockerVolume(BaseModel):
    """A Docker named volume to create (`docker volume create`) and mount in a container.

    The Docker runtime creates it before the container starts and removes it after;
    the backend only defines it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    kind: Literal["docker-volume"] = "docker-volume"
    name: str
    driver: str = "local"
    driver_opts: dict[str, str] = Field(default_factory=dict)
    labels: dict[str, str] = Field(default_factory=dict)

    def create_argv(self) -> list[str]:
        """`docker volume create …` for this definition."""
        argv = ["docker", "volume", "create", "--driver", self.driver]
        for key, value in self.driver_opts.items():
            argv += ["--opt", f"{key}={value}"]
        for key, value in self.labels.items():
            argv += ["--label", f"{key}={value}"]
        return [*argv, self.name]


DataLocation = HostPath | DockerVolume
