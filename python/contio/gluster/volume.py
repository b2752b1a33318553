"""A GlusterFS volume: create, start, status, heal, stop, delete — through the gluster CLI's XML."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from typing import Any

from contio.errors import ClusterError
from contio.gluster.cluster import GlusterCluster, open_cluster
from contio.gluster.layout import BrickSlot, VolumeLayout
from contio.gluster.node_access import gluster_text, gluster_xml
from contio.host.undo_journal import Entry
from contio.host.waiting import poll_until

POLL_SECONDS = 0.5
HEAL_RETRIGGER_SECONDS = 10.0


class GlusterVolume:
    """One volume of a cluster, by name."""

    def __init__(self, cluster: GlusterCluster, name: str):
        self.cluster = cluster
        self.name = name

    def brick_names(self, slots: list[BrickSlot]) -> list[str]:
        """`address:/path` of each slot's brick directory for this volume."""
        nodes = self.cluster.nodes()
        return [f"{nodes[s.node].address}:{s.root}/{self.name}" for s in slots]

    def create(self, layout: VolumeLayout, slots: list[BrickSlot], options: dict[str, str]) -> None:
        """Create (not start) the volume over `slots` and apply volume options."""
        for slot in slots:
            self.cluster.make_dir(slot.node, f"{slot.root}/{self.name}")
        args = layout.create_args(self.name, self.brick_names(slots))
        gluster_xml(self.cluster.controller(), args)
        for key, value in options.items():
            gluster_xml(self.cluster.controller(), ["volume", "set", self.name, key, value])

    def start(self, force: bool = False) -> None:
        """Start the volume; `force` also restarts bricks that are down."""
        args = ["volume", "start", self.name, *(["force"] if force else [])]
        gluster_xml(self.cluster.controller(), args)

    def exists(self) -> bool:
        """Whether the pool knows the volume."""
        root = gluster_xml(self.cluster.controller(), ["volume", "list"])
        return self.name in [v.text for v in root.iter("volume")]

    def stop_and_delete(self) -> None:
        """Stop (if started) and delete the volume."""
        if not self.exists():
            return
        info = self.info()
        if info["status"] == "Started":
            gluster_xml(self.cluster.controller(), ["volume", "stop", self.name, "force"])
        gluster_xml(self.cluster.controller(), ["volume", "delete", self.name])

    def info(self) -> dict[str, Any]:
        """Type, counts, bricks and options from `gluster volume info NAME`."""
        root = gluster_xml(self.cluster.controller(), ["volume", "info", self.name])
        vol = root.find("volInfo/volumes/volume")
        if vol is None:
            raise ClusterError(f"volume {self.name}: `volume info` returned no volume")
        return {
            "name": vol.findtext("name"),
            "type": vol.findtext("typeStr"),
            "status": vol.findtext("statusStr"),
            "brick_count": int(vol.findtext("brickCount", "0")),
            "distribute_count": int(vol.findtext("distCount", "0")),
            "replica_count": int(vol.findtext("replicaCount", "0")),
            "disperse_count": int(vol.findtext("disperseCount", "0")),
            "redundancy_count": int(vol.findtext("redundancyCount", "0")),
            "bricks": [b.findtext("name") for b in vol.iter("brick")],
            "options": {o.findtext("name"): o.findtext("value") for o in vol.iter("option")},
        }

    def bricks_online(self) -> dict[str, bool]:
        """For each brick, whether its process is online (`gluster volume status`)."""
        root = gluster_xml(self.cluster.controller(), ["volume", "status", self.name])
        online = {}
        for node in root.iter("node"):
            path = node.findtext("path") or ""
            if path.startswith("/"):  # self-heal daemons have hostnames, not paths
                online[f"{node.findtext('hostname')}:{path}"] = node.findtext("status") == "1"
        return online

    def wait_online(self, timeout: float = 60.0) -> None:
        """Wait until every brick of the volume is online."""
        expected = set(self.info()["bricks"])

        def down() -> list[str]:
            online = self.bricks_online()
            return sorted(b for b in expected if not online.get(b))

        if expected and poll_until(lambda: not down(), timeout, interval=POLL_SECONDS):
            return
        raise ClusterError(f"volume {self.name}: bricks not online after {timeout:g} s: {down()}")

    def heal_pending(self) -> int | None:
        """Entries still to heal over all bricks, or None while a brick is not connected."""
        root = gluster_xml(self.cluster.controller(), ["volume", "heal", self.name, "info"])
        return pending_heal_entries(root)

    def trigger_heal(self) -> None:
        """Ask the self-heal daemons to heal the index now (instead of at their next crawl)."""
        gluster_text(self.cluster.controller(), ["volume", "heal", self.name])

    def wait_healed(self, timeout: float = 120.0) -> float:
        """Wait until every brick is connected with zero entries to heal; seconds waited.

        The daemons crawl on their own only every `cluster.heal-timeout` (600 s by
        default), so the heal is launched explicitly, and again while entries remain.
        """
        start = time.monotonic()
        last: int | None = None
        next_trigger = start
        while True:
            try:
                last = self.heal_pending()
                if last and time.monotonic() >= next_trigger:
                    self.trigger_heal()
                    next_trigger = time.monotonic() + HEAL_RETRIGGER_SECONDS
            except ClusterError:
                last = None  # glusterd may refuse while a peer reconnects
            if last == 0:
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise ClusterError(
                    f"volume {self.name}: self-heal not complete after {timeout:g} s "
                    f"(pending entries: {'unknown, a brick is down' if last is None else last})"
                )
            time.sleep(POLL_SECONDS)


def pending_heal_entries(root: ET.Element) -> int | None:
    """Sum of `numberOfEntries` over bricks of `heal info --xml`; None if one is not connected."""
    total = 0
    bricks = list(root.iter("brick"))
    if not bricks:
        return None
    for brick in bricks:
        entries = brick.findtext("numberOfEntries", "")
        if brick.findtext("status") != "Connected" or not entries.isdigit():
            return None
        total += int(entries)
    return total


def undo_volume(entry: Entry) -> None:
    """Journal undo: stop and delete the volume, then remove its brick directories."""
    try:
        cluster = open_cluster(entry["cluster"])
    except ClusterError:
        return  # the cluster is gone, and the volume and bricks with it
    volume = GlusterVolume(cluster, entry["volume"])
    volume.stop_and_delete()
    for node, path in entry["brick_dirs"]:
        cluster.remove_dir(node, path)
