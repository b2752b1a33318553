"""The block I/O cgroup of a running Docker container.

The container's main process is asked where it lives (`/proc/<pid>/cgroup`), which
works for Docker's cgroupfs driver (`/docker/<id>`, this machine) and for the systemd
driver (`/system.slice/docker-<id>.scope`) alike, under v1 and v2.
"""

from __future__ import annotations

from pathlib import Path

import docker
import docker.errors

from contio.errors import QosError
from contio.qos.hierarchy import Cgroup, detect


def cgroup_of_pid(pid: int, mount_text: str | None = None, proc: Path = Path("/proc")) -> Cgroup:
    """The cgroup that controls block I/O for process `pid`."""
    version, root = detect(mount_text)
    try:
        lines = (proc / str(pid) / "cgroup").read_text().splitlines()
    except FileNotFoundError:
        raise QosError(f"process {pid} does not exist") from None
    for line in lines:
        _, controllers, relative = line.split(":", 2)
        if version == "v1" and "blkio" in controllers.split(","):
            return Cgroup("v1", root / relative.lstrip("/"))
        if version == "v2" and controllers == "":
            return Cgroup("v2", root / relative.lstrip("/"))
    raise QosError(f"process {pid} has no {version} block I/O cgroup in {proc}/{pid}/cgroup")


def container_cgroup(
    client: docker.DockerClient, container: str, mount_text: str | None = None
) -> Cgroup:
    """The block I/O cgroup of running container `container` (name or id)."""
    try:
        attrs = client.containers.get(container).attrs
    except docker.errors.NotFound:
        raise QosError(f"no container named {container!r}") from None
    pid = attrs.get("State", {}).get("Pid") or 0
    if pid <= 0:
        raise QosError(f"container {container!r} is not running; controls need a running one")
    cgroup = cgroup_of_pid(pid, mount_text)
    if not cgroup.path.is_dir():
        raise QosError(f"container {container!r}: cgroup {cgroup.path} does not exist")
    return cgroup
