"""The storage backends the `backends` benchmark measures, provisioned by contio itself.

Every backend is made through `contio.backends.registry` (the classes `contio run`
uses) and torn down before the next one is made, so only one holds disk space and
page cache at a time. The Gluster volumes share one 3-node one-machine cluster, built
with the same `LocalCluster.up` as `contio cluster up` and removed with
`contio.gluster.local_cluster.down` on any exit (an error, Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from benchmarks.errors import SetupError

CLUSTER_NAME = "ctbench"
CLUSTER_SUBNET = "10.219.0.0/24"
CLUSTER_DISK_SIZE = "1GiB"
LOOP_SIZE = "1GiB"

# Client-side caching that would make an O_DIRECT request on the FUSE mount something
# else: with `performance.strict-o-direct` off (Gluster's default) write-behind
# acknowledges O_DIRECT writes before any brick has them. `network.remote-dio` stays
# at its default (disable), so bricks open files with O_DIRECT too.
GLUSTER_VOLUME_OPTIONS = {"performance.strict-o-direct": "on"}


@dataclass(frozen=True)
class BackendCase:
    """One backend line of the table: a label and the backend's options."""

    label: str
    backend: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def is_gluster(self) -> bool:
        """Whether the case needs the shared Gluster cluster."""
        return self.backend == "gluster"


def _gluster(volume_type: str, **counts: int) -> BackendCase:
    options = {
        "volume_type": volume_type,
        "cluster": CLUSTER_NAME,
        "volume_options": GLUSTER_VOLUME_OPTIONS,
        **counts,
    }
    return BackendCase(f"gluster {volume_type}", "gluster", options)


BACKEND_CASES = (
    BackendCase(
        "local (XFS, loop)",
        "local",
        {
            "mode": "device",
            "device": "loop",
            "format": "xfs",
            "loop_size": LOOP_SIZE,
            "loop_direct_io": True,
        },
    ),
    # `method: auto`: LVM where the kernel has device-mapper, else btrfs RAID0 (here).
    BackendCase(
        "striped (3 loops)",
        "striped",
        {"loop_count": 3, "loop_size": LOOP_SIZE, "loop_direct_io": True},
    ),
    _gluster("distributed"),
    _gluster("replicated", replica=3),
    _gluster("distributed-replicated", replica=3),
    _gluster("dispersed", disperse=3, redundancy=1),
    _gluster("distributed-dispersed", disperse=3, redundancy=1),
)

_ROOT_PROGRAMS = ("losetup", "mkfs.xfs", "mkfs.btrfs", "mount", "umount")
_GLUSTER_PROGRAMS = ("glusterd", "gluster", "mount.glusterfs", "ip", "nsenter", "unshare")


def check_host() -> None:
    """SetupError unless this process is root with every program the backends need."""
    if os.geteuid() != 0:
        raise SetupError("the backends benchmark needs root (loop devices, mounts, namespaces)")
    missing = [p for p in (*_ROOT_PROGRAMS, *_GLUSTER_PROGRAMS) if shutil.which(p) is None]
    if missing:
        raise SetupError(f"missing programs: {', '.join(missing)} (run scripts/setup-system.sh)")


@contextmanager
def gluster_cluster() -> Iterator[str]:
    """The 3-node cluster the Gluster cases share; removed on any exit."""
    from contio.gluster import local_cluster
    from contio.gluster.cluster_state import LocalClusterConfig
    from contio.gluster.local_cluster import LocalCluster

    # A benchmark killed with SIGKILL left its cluster: remove it by its journal.
    local_cluster.down(CLUSTER_NAME)
    config = LocalClusterConfig(
        name=CLUSTER_NAME, nodes=3, disks_per_node=2, disk_size=CLUSTER_DISK_SIZE,
        subnet=CLUSTER_SUBNET,  # type: ignore[arg-type]  (pydantic parses the string)
    )  # fmt: skip
    try:
        LocalCluster.up(config)
        yield CLUSTER_NAME
    finally:
        local_cluster.down(CLUSTER_NAME)


@contextmanager
def provisioned(case: BackendCase) -> Iterator[Any]:
    """The backend of `case`, prepared; torn down on any exit."""
    from contio.backends import registry

    backend = registry.create(case.backend, case.options)
    try:
        backend.prepare()  # a failure here tears down what was half made
        yield backend
    finally:
        backend.teardown()


def summary(described: dict[str, Any]) -> str:
    """One line of what a backend is, for the report's notes."""
    mount = described.get("mount") or {}
    parts = [f"{mount.get('fstype', '?')} at {mount.get('mount_point', '?')}"]
    if described.get("method"):
        parts.append(f"method {described['method']} ({described.get('method_reason', '')})")
    info = described.get("volume_info")
    if info:
        parts.append(f"{info['type']}, {info['brick_count']} bricks")
    devices = described.get("devices") or [described.get("device") or {}]
    loops = [d["loop_direct_io"] for d in devices if "loop_direct_io" in d]
    if loops:
        parts.append(f"{len(loops)} loop device(s), direct I/O {'on' if all(loops) else 'off'}")
    return "; ".join(parts)
