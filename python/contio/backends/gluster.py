"""`gluster`: a GlusterFS volume of any of the five types, mounted on the host with the
native FUSE client, one data directory per container under the mount — the architecture
of paper 000 (docs/papers.md), section 3.

The cluster is either the one-machine cluster `cluster` (made by `contio cluster up`;
if it is not up the backend builds it with `nodes`, `disks_per_node`, `disk_size` and
removes it at teardown), or real hosts from an SSH `inventory`.

With `volume_per_tenant`, each tenant of paper 004's I/O middleware gets a volume of its
own (same layout, on the same brick disks), made and mounted at its first container:
every brick process then serves one tenant, which is the handle the middleware's node
agents control (docs/middleware.md).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator

from contio.backends.interface import (
    BackendOptions,
    Capabilities,
    HostProblem,
    JournaledBackend,
    fresh_directory,
)
from contio.errors import BackendError, BackendOptionError, ClusterError, CommandError
from contio.gluster.cluster import GlusterCluster
from contio.gluster.cluster_state import LocalClusterConfig
from contio.gluster.inventory import SshCluster
from contio.gluster.layout import VolumeLayout, VolumeType, place_bricks
from contio.gluster.local_cluster import LocalCluster
from contio.gluster.volume import GlusterVolume
from contio.host import filesystem, mountinfo
from contio.host.waiting import poll_until
from contio.yaml_input import Integer

MOUNT_ATTEMPTS = 10
CLIENT_EXIT_SECONDS = 10.0
DIRECT_IO_OPTIONS = {"performance.strict-o-direct": "on", "network.remote-dio": "disable"}
"""Tenant volumes' defaults: a client's O_DIRECT reaches the bricks, so their cgroups'
blkio counters and throttles see writes as they happen (buffered writeback escapes
blkio on cgroup v1)."""


class GlusterOptions(BackendOptions):
    """Options of the `gluster` backend."""

    volume_type: VolumeType = "dispersed"
    bricks: Integer | None = Field(None, ge=1, le=256)
    replica: Integer | None = Field(None, ge=2, le=16)
    disperse: Integer | None = Field(None, ge=3, le=64)
    redundancy: Integer | None = Field(None, ge=1, le=31)
    volume_name: str | None = Field(None, pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
    volume_options: dict[str, str] = Field(default_factory=dict)
    mount_options: list[str] = Field(default_factory=list)
    cluster: str = Field("contio", pattern=r"^[a-z][a-z0-9]{0,7}$")
    nodes: Integer = Field(3, ge=3, le=16)
    disks_per_node: Integer = Field(2, ge=1, le=8)
    disk_size: str = "2GiB"
    subnet: str = "10.213.0.0/24"
    disk_bandwidth: int | str | None = None
    """A cluster built for the run: each brick disk a slow device of this many bytes/s."""
    inventory: Path | None = None
    volume_per_tenant: bool = False
    """Each middleware tenant's containers on a volume of its own (see the module doc)."""

    @field_validator("mount_options")
    @classmethod
    def _mount_options(cls, value: list[str]) -> list[str]:
        for opt in value:
            if not re.fullmatch(r"[A-Za-z0-9_.-]+(=[^,\s]+)?", opt):
                raise ValueError(f"{opt!r} is not a mount option (name or name=value, no commas)")
        return value

    @model_validator(mode="after")
    def _layout(self) -> GlusterOptions:
        self.layout()  # raises ValueError naming the count that does not fit
        if self.inventory is None:
            self.cluster_config()
        return self

    def cluster_config(self) -> LocalClusterConfig:
        """The local cluster to build when `cluster` is not up."""
        return LocalClusterConfig(
            name=self.cluster, nodes=self.nodes, disks_per_node=self.disks_per_node,
            disk_size=self.disk_size, subnet=self.subnet, disk_bandwidth=self.disk_bandwidth,
        )  # fmt: skip

    def layout(self) -> VolumeLayout:
        """The volume type and counts."""
        return VolumeLayout(
            volume_type=self.volume_type, bricks=self.bricks, replica=self.replica,
            disperse=self.disperse, redundancy=self.redundancy,
        )  # fmt: skip


class GlusterBackend(JournaledBackend):
    """A Gluster volume over a cluster, FUSE-mounted on this host."""

    name = "gluster"
    options_model = GlusterOptions
    path_options = ("inventory",)
    options: GlusterOptions
    capabilities = Capabilities(node_faults=True)

    @classmethod
    def host_problems(cls, options: BackendOptions) -> list[HostProblem]:
        """An SSH inventory that cannot be read or is not one: found by `plan`, not when
        `run` opens the cluster."""
        assert isinstance(options, GlusterOptions)
        if options.inventory is None:
            return []
        try:
            SshCluster.load(options.inventory)
        except BackendOptionError as exc:
            return [("inventory", exc.problem)]
        return []

    def __init__(
        self, options: GlusterOptions, workdir: Path | None = None, experiment: str = "contio"
    ):
        super().__init__(options, workdir, experiment)
        self.volume_name = options.volume_name or self.instance.replace("gluster-", "contio-")
        self.cluster: GlusterCluster | None = None
        self.volume: GlusterVolume | None = None
        self._mount = self.workdir / "mnt"
        self._tenant_mounts: dict[str, Path] = {}
        self._tenant_labels: dict[str, int] = {}

    def build(self) -> None:
        self.cluster = self._open_cluster()
        self.volume = self._create_volume(self.volume_name, self.options.volume_options)
        self._mount_volume(self.volume_name, self._mount)

    def _create_volume(self, name: str, options: dict[str, str]) -> GlusterVolume:
        assert self.cluster is not None
        layout = self.options.layout()
        roots = self.cluster.brick_roots()
        count = layout.brick_count(len(roots))
        try:
            slots = place_bricks(roots, count, layout.set_size)
        except ValueError as exc:
            option = "bricks" if count > layout.set_size else "replica/disperse"
            raise BackendOptionError(self.name, option, str(exc)) from None
        volume = GlusterVolume(self.cluster, name)
        if volume.exists():
            raise BackendOptionError(self.name, "volume_name", f"volume {name} exists")
        self.journal.record(
            "gluster-volume",
            cluster=self.cluster.reference(),
            volume=name,
            brick_dirs=[[s.node, f"{s.root}/{name}"] for s in slots],
        )
        volume.create(layout, slots, options)
        volume.start()
        volume.wait_online()
        return volume

    def tenant_volume(self, tenant: str) -> str:
        """The volume of `tenant` (its name is the middleware's name for the tenant)."""
        return f"{self.volume_name}-{tenant}"

    def tenant_directory(self, label: str, tenant: str) -> Path:
        """A fresh directory for `label` on `tenant`'s volume, made at its first use."""
        if not self.options.volume_per_tenant:
            raise BackendOptionError(
                self.name, "volume_per_tenant", "must be true to give tenants volumes of their own"
            )
        if self.cluster is None:
            raise BackendError(f"backend '{self.name}': provision() must run before data locations")
        mount = self._tenant_mounts.get(tenant)
        if mount is None:
            name = self.tenant_volume(tenant)
            self._create_volume(name, {**DIRECT_IO_OPTIONS, **self.options.volume_options})
            mount = self.workdir / f"mnt-{tenant}"
            self._mount_volume(name, mount)
            self._tenant_mounts[tenant] = mount
        return fresh_directory(mount, label, self._tenant_labels)

    def release(self, path: Path) -> None:
        """Remove a data directory (on the main volume or a tenant's) once its runs are done."""
        for mount in [self._mount, *self._tenant_mounts.values()]:
            if mount in path.parents:
                shutil.rmtree(path, ignore_errors=True)

    def _open_cluster(self) -> GlusterCluster:
        if self.options.inventory is not None:
            cluster = SshCluster.load(self.options.inventory)
            cluster.ensure_pool()
            return cluster
        name = self.options.cluster
        if LocalCluster.exists(name):
            return LocalCluster.open(name)
        self.journal.record("gluster-cluster", name=name)
        return LocalCluster.up(self.options.cluster_config())

    def _mount_volume(self, volume: str, mount_point: Path) -> None:
        assert self.cluster is not None
        addresses = [n.address for n in self.cluster.nodes()]
        log = self.workdir / f"fuse-client-{volume}.log"
        self.journal.record("file", path=str(log))
        options = [
            f"log-file={log}",
            # Fetch the volume layout from another node when the first is down.
            f"backup-volfile-servers={':'.join(addresses[1:])}",
            *self.options.mount_options,
        ]
        source = f"{addresses[0]}:/{volume}"
        # The volume's bricks can take a moment to accept the client after `start`.
        for attempt in range(MOUNT_ATTEMPTS):
            try:
                filesystem.mount(source, mount_point, self.journal, "glusterfs", options)
                return
            except CommandError:
                if attempt == MOUNT_ATTEMPTS - 1:
                    raise
                time.sleep(0.5)

    def data_root(self) -> Path:
        return self._mount

    def fault_domain(self) -> tuple[GlusterCluster, GlusterVolume]:
        """The cluster and volume node-stop events play on (once provisioned)."""
        if self.cluster is None or self.volume is None:
            raise BackendError(f"backend '{self.name}': provision() must run before faults")
        return self.cluster, self.volume

    def teardown(self) -> None:
        """Unmount, delete the volume (and a cluster built for it); wait for the FUSE client."""
        clients = [
            pid
            for mount in [self._mount, *self._tenant_mounts.values()]
            for pid in fuse_client_pids(mount)
        ]
        self._tenant_mounts.clear()
        super().teardown()

        # The client process exits shortly after the unmount; a leftover would keep
        # reconnecting to a deleted volume.
        def alive() -> list[int]:
            return [p for p in clients if Path(f"/proc/{p}").exists()]

        poll_until(lambda: not alive(), CLIENT_EXIT_SECONDS, interval=0.1)
        for pid in alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def layout(self) -> dict[str, Any]:
        info: dict[str, Any] = {"volume": self.volume_name}
        if self.cluster is not None and self.volume is not None:
            try:
                info["volume_info"] = self.volume.info()
            except ClusterError as exc:
                info["volume_info_error"] = str(exc)
            info["cluster"] = self.cluster.describe()
        mount = mountinfo.mount_of(self._mount) if self._mount.exists() else None
        info["mount"] = mount.as_dict() if mount else None
        info["client"] = "glusterfs native (FUSE)"
        if self._tenant_mounts:
            info["tenant_volumes"] = {t: self.tenant_volume(t) for t in self._tenant_mounts}
        return info


def fuse_client_pids(mount_point: Path) -> list[int]:
    """Pids of glusterfs client processes serving `mount_point`."""
    wanted = str(mount_point).encode()
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if args and args[0].endswith(b"glusterfs") and wanted in args:
            pids.append(int(proc.name))
    return pids
