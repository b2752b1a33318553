"""The one-machine GlusterFS cluster of `contio cluster up`: one node per network namespace.

Each node has its own IP on a bridge (one veth per node), its own glusterd in a private
mount namespace (own /var/lib/glusterd, /var/log/glusterfs and /run; see node_boot), and
its own brick disks: XFS on a loop device over a sparse file, one per brick slot (with
`disk_bandwidth`, a slow device: the file served through a FUSE file paced to that
cap, `contio.host.slow_device`, so a throttle of tens of MB/s is a fair part of a
disk rather than ~1 % of a loop device's ~1.8 GB/s). The
host reaches every node over the bridge, so the native FUSE client mounts volumes on the
host as it would from a real storage cluster.

Everything made is recorded in an undo journal next to the state file, so `down` removes
it all (processes, mounts, loop devices, namespaces, bridge, firewall rule) even after a
crash of `up`.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from contio.engine.invocation import find_engine
from contio.errors import ClusterConfigError, ClusterError
from contio.gluster import firewall
from contio.gluster.cluster_state import ClusterState, LocalClusterConfig, NodeState, planned_state
from contio.gluster.node_access import NamespaceNode, gluster_text, wait_for_peers
from contio.host import command, filesystem, loop_device, mountinfo, slow_device
from contio.host.state_dir import state_root
from contio.host.undo_journal import Entry, UndoJournal, netns_pids
from contio.host.waiting import poll_until

GLUSTERD_PORT = 24007
NODE_LINK = "eth0"
"""The node's end of its veth pair, inside its namespace."""
START_TIMEOUT = 30.0
REQUIRED_PROGRAMS = {
    "ip": "iproute2", "nsenter": "util-linux", "unshare": "util-linux", "losetup": "mount",
    "glusterd": "glusterfs-server", "gluster": "glusterfs-server", "mkfs.xfs": "xfsprogs",
    "mount.glusterfs": "glusterfs-client",
}  # fmt: skip


def link_cpu_mask(cpu: int) -> str:
    """The `rps_cpus` mask that names one CPU (hex, a comma every 32 CPUs)."""
    digits = f"{1 << cpu:x}"
    digits = digits.zfill(-(-len(digits) // 8) * 8)
    return ",".join(digits[k : k + 8] for k in range(0, len(digits), 8)).lstrip("0") or "0"


def _keep_link_order(veth: str, node: NodeState) -> None:
    """Receive each end of a node's veth pair on one CPU, so its packets arrive in order.

    A veth hands each packet to the receive backlog of the CPU its sender runs on; a
    sender that migrates between CPUs mid-burst has the rest of its burst processed
    first by the other CPU. A real link delivers in order. TCP takes the reordering for
    loss: on this machine 1-2 % of 1 MiB reads through the FUSE client stalled for
    ~180 ms behind spurious retransmits (DSACKs at the sender, out-of-order packets at
    the host). Receive packet steering to a single CPU per link keeps one backlog per
    link; the links are spread over the CPUs. Without RPS in the kernel the files are
    missing and the links stay as they are."""
    cpus = os.cpu_count() or 1
    mask = link_cpu_mask((node.index - 1) % cpus)
    host_side = Path(f"/sys/class/net/{veth}/queues/rx-0/rps_cpus")
    if host_side.exists():
        host_side.write_text(mask)
    node_side = f"/sys/class/net/{NODE_LINK}/queues/rx-0/rps_cpus"
    # The node's end is only visible in its namespace's sysfs, which `ip netns exec` mounts.
    command.run(["ip", "netns", "exec", node.netns, "tee", node_side], check=False,
                input_text=mask)  # fmt: skip


def cluster_root(name: str) -> Path:
    """Where a local cluster's state, disks and node directories live."""
    return state_root() / "clusters" / name


class LocalCluster:
    """A cluster built (or found) on this machine."""

    def __init__(self, state: ClusterState, root: Path):
        self.state = state
        self.root = root
        self.journal = UndoJournal(root / "journal.json")

    # -- finding and building -----------------------------------------------------
    @classmethod
    def open(cls, name: str) -> LocalCluster:
        """The running cluster `name`; `ClusterError` when none is up."""
        root = cluster_root(name)
        state_file = root / "state.json"
        if not state_file.exists():
            raise ClusterConfigError(f"no local cluster '{name}' is up (run `contio cluster up`)")
        state = ClusterState.model_validate_json(state_file.read_text(encoding="utf-8"))
        return cls(state, root)

    @classmethod
    def exists(cls, name: str) -> bool:
        """Whether a cluster `name` has state on this machine (up, or half-built)."""
        return cluster_root(name).exists()

    @classmethod
    def up(cls, config: LocalClusterConfig) -> LocalCluster:
        """Build and start the cluster; on any failure remove what was built and re-raise."""
        for program, package in REQUIRED_PROGRAMS.items():
            command.require_program(program, package)
        root = cluster_root(config.name)
        if root.exists():
            raise ClusterConfigError(
                f"local cluster '{config.name}' already exists at {root}; "
                "run `contio cluster down` first"
            )
        _check_subnet_free(config.subnet)
        root.mkdir(parents=True)
        cluster = cls(planned_state(config, root), root)
        cluster.journal.record("dir", path=str(root))
        try:
            cluster._build()
        except BaseException:
            cluster.journal.undo_all()
            raise
        return cluster

    def _save_state(self) -> None:
        path = self.root / "state.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.state.model_dump_json(indent=1), encoding="utf-8")
        os.replace(tmp, path)

    def _build(self) -> None:
        self._save_state()
        self._make_bridge()
        for node in self.state.nodes:
            self._make_node_network(node)
            self._make_node_disks(node)
        # Every node's processes are killed before any disk is unmounted: each glusterd
        # runs in a private copy of the host's mount namespace, which holds every node's
        # disk mounts (and a slow disk's FUSE mount, whose daemon would not exit).
        for node in self.state.nodes:
            self.journal.record("netns-processes", name=node.netns)
        for node in self.state.nodes:
            self.start_node(node.index)
        self._form_pool()

    def _make_bridge(self) -> None:
        bridge, net = self.state.bridge, self.state.config.subnet
        self.journal.record("link", name=bridge)
        command.run(["ip", "link", "add", bridge, "type", "bridge"])
        command.run(
            ["ip", "addr", "add", f"{self.state.host_address}/{net.prefixlen}", "dev", bridge]
        )
        command.run(["ip", "link", "set", bridge, "up"])
        rule = firewall.accept_bridge_rule(bridge)
        if rule is not None:
            self.journal.record("iptables-rule", **rule)
            firewall.insert(rule)

    def _make_node_network(self, node: NodeState) -> None:
        veth = f"{self.state.bridge[:-2]}v{node.index}"
        prefix = self.state.config.subnet.prefixlen
        self.journal.record("netns", name=node.netns)
        command.run(["ip", "netns", "add", node.netns])
        self.journal.record("link", name=veth)
        command.run(["ip", "link", "add", veth, "type", "veth", "peer", "name", NODE_LINK,
                     "netns", node.netns])  # fmt: skip
        command.run(["ip", "link", "set", veth, "master", self.state.bridge, "up"])
        in_ns = ["ip", "-n", node.netns]
        command.run([*in_ns, "addr", "add", f"{node.address}/{prefix}", "dev", NODE_LINK])
        command.run([*in_ns, "link", "set", NODE_LINK, "up"])
        command.run([*in_ns, "link", "set", "lo", "up"])
        _keep_link_order(veth, node)

    def _make_node_disks(self, node: NodeState) -> None:
        size = filesystem.parse_size(self.state.config.disk_size)
        bandwidth = self.state.config.disk_bandwidth
        for k, mount_point in enumerate(node.disks, start=1):
            image = Path(node.dir) / f"disk{k}.img"
            loop_device.make_image(image, size, self.journal)
            if bandwidth is not None:
                caps = slow_device.DeviceCaps(bandwidth=int(bandwidth))
                paced = slow_device.serve(
                    find_engine(), image, Path(node.dir) / f"slowdev{k}", caps, self.journal
                )
                image = paced.file
            # Direct I/O on a slow disk: no page cache of the host between it and the bricks.
            device = loop_device.attach_file(image, self.journal, direct_io=bandwidth is not None)
            # 512-byte inodes keep gluster's extended attributes inside the inode.
            filesystem.make_filesystem("xfs", device, ["-i", "size=512"])
            filesystem.mount(device, Path(mount_point), self.journal, "xfs")

    def _form_pool(self) -> None:
        first = self.nodes()[0]
        for node in self.state.nodes[1:]:
            gluster_text(first, ["peer", "probe", node.address])
        wait_for_peers(self.nodes(), START_TIMEOUT)

    # -- nodes -------------------------------------------------------------------
    def _node(self, number: int) -> NodeState:
        if not 1 <= number <= len(self.state.nodes):
            raise ClusterError(
                f"node {number} does not exist (nodes are 1..{len(self.state.nodes)})"
            )
        return self.state.nodes[number - 1]

    def glusterd_pid(self, number: int) -> int | None:
        """The pid of node `number`'s glusterd, or None when it is not running."""
        for pid in netns_pids(self._node(number).netns):
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == "glusterd":
                    return pid
            except OSError:
                continue
        return None

    def start_node(self, number: int) -> None:
        """Start glusterd of node `number` (1-based) and wait until it accepts connections.

        The node's network comes up first, in case `stop_node(isolate=True)` took it down.
        """
        node = self._node(number)
        command.run(["ip", "-n", node.netns, "link", "set", NODE_LINK, "up"])
        if self.glusterd_pid(number) is not None:
            return
        argv = [
            "nsenter", f"--net=/run/netns/{node.netns}", "--",
            "unshare", "--mount", "--propagation", "private", "--",
            sys.executable, "-m", "contio.gluster.node_boot", node.dir,
        ]  # fmt: skip
        # The same contio the caller runs (a source tree or an installed package).
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        with open(Path(node.dir) / "glusterd.out", "ab") as out:
            # A new session: glusterd outlives `contio cluster up` and ignores its ^C.
            subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                             start_new_session=True, env=env)  # fmt: skip
        _wait_for_port(node.address, GLUSTERD_PORT, START_TIMEOUT)
        # The port answers a little before the CLI socket does.
        pool_list = ["gluster", "--mode=script", "pool", "list"]

        def answers() -> bool:
            argv = self._ns_node(number).argv(pool_list)
            return command.run(argv, check=False).returncode == 0

        if not poll_until(answers, START_TIMEOUT, interval=0.2):
            raise ClusterError(f"glusterd of node {number} does not answer its CLI")

    def stop_node(self, number: int, isolate: bool = False) -> None:
        """Kill every process of node `number` (glusterd, bricks, self-heal daemon): a crash.

        `isolate`: take the node's network link down first, so the resets of its closed
        connections never reach the clients: they wait for `network.ping-timeout`, as
        when a machine loses power. `start_node` brings the link back.
        """
        netns = self._node(number).netns
        if isolate:
            command.run(["ip", "-n", netns, "link", "set", NODE_LINK, "down"])

        def all_killed() -> bool:
            pids = netns_pids(netns)
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            return not pids

        if not poll_until(all_killed, START_TIMEOUT):
            raise ClusterError(f"node {number}: processes {netns_pids(netns)} survive SIGKILL")

    def _ns_node(self, number: int) -> NamespaceNode:
        pid = self.glusterd_pid(number)
        if pid is None:
            raise ClusterError(f"glusterd of node {number} is not running")
        return NamespaceNode(address=self._node(number).address, glusterd_pid=pid)

    # -- GlusterCluster protocol ----------------------------------------------------
    def reference(self) -> dict[str, Any]:
        return {"kind": "local", "name": self.state.config.name}

    def nodes(self) -> list[NamespaceNode]:
        """Every node; a stopped node has glusterd_pid 0 (commands on it fail)."""
        return [NamespaceNode(n.address, self.glusterd_pid(n.index) or 0) for n in self.state.nodes]

    def controller(self) -> NamespaceNode:
        for node in self.state.nodes:
            if self.glusterd_pid(node.index) is not None:
                return self._ns_node(node.index)
        raise ClusterError(f"no glusterd of cluster '{self.state.config.name}' is running")

    def brick_roots(self) -> list[list[str]]:
        return [list(n.disks) for n in self.state.nodes]

    def make_dir(self, node: int, path: str) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)  # brick disks are mounted on the host too

    def remove_dir(self, node: int, path: str) -> None:
        command.run(["rm", "-rf", "--one-file-system", "--", path])

    def describe(self) -> dict[str, Any]:
        """What the cluster is, as built: its config (so a run on a cluster that was up
        records the cluster's subnet and disk size, not the backend's unused defaults),
        bridge, and per node its namespace, address, glusterd state and brick disks."""
        return {
            "kind": "local",
            "name": self.state.config.name,
            "config": self.state.config.model_dump(mode="json"),
            "bridge": self.state.bridge,
            "host_address": self.state.host_address,
            "nodes": [
                {
                    "node": n.index,
                    "netns": n.netns,
                    "address": n.address,
                    "running": self.glusterd_pid(n.index) is not None,
                    "brick_disks": [_disk_info(d) for d in n.disks],
                }
                for n in self.state.nodes
            ],
        }

    # -- removal -----------------------------------------------------------------
    def down(self) -> None:
        """Remove the cluster: client mounts of its volumes, then all it made."""
        addresses = {n.address for n in self.state.nodes}
        for entry in mountinfo.mounts():
            if entry.fstype == "fuse.glusterfs" and entry.source.split(":")[0] in addresses:
                command.run(["umount", "-l", entry.mount_point], check=False)
        self.journal.undo_all()


def down(name: str) -> bool:
    """Remove cluster `name`, even half-built; False when there is nothing to remove."""
    root = cluster_root(name)
    if not root.exists():
        return False
    if (root / "state.json").exists():
        LocalCluster.open(name).down()
    else:
        UndoJournal(root / "journal.json").undo_all()
    # A crash between `losetup` and its journal entry leaves a loop device only the
    # backing file's place identifies.
    for device in loop_device.attached_to(root):
        command.run(["umount", "-l", device], check=False)
        command.run(["losetup", "--detach", device], check=False)
    if root.exists() and not (root / "journal.json").exists():
        shutil.rmtree(root, ignore_errors=True)
    if root.exists() and not any(root.iterdir()):
        root.rmdir()
    return True


def undo_cluster(entry: Entry) -> None:
    """Journal undo for a cluster a backend built for itself."""
    down(entry["name"])


def _check_subnet_free(subnet: ipaddress.IPv4Network) -> None:
    out = command.run(["ip", "-4", "-o", "addr", "show"]).stdout
    for line in out.splitlines():
        fields = line.split()
        if "inet" in fields:
            iface = ipaddress.IPv4Interface(fields[fields.index("inet") + 1])
            if iface.network.overlaps(subnet):
                raise ClusterConfigError(
                    f"subnet {subnet} overlaps {iface} on {fields[1]}; choose another with --subnet"
                )


def _wait_for_port(address: str, port: int, timeout: float) -> None:
    refused: list[OSError] = []

    def connects() -> bool:
        try:
            with socket.create_connection((address, port), timeout=1.0):
                return True
        except OSError as exc:
            refused.append(exc)
            return False

    if not poll_until(connects, timeout, interval=0.1):
        raise ClusterError(f"{address}:{port} not reachable after {timeout:g} s: {refused[-1]}")


def _disk_info(mount_point: str) -> dict[str, Any]:
    entry = mountinfo.mount_of(mount_point)
    return {"mount_point": mount_point, **({"fstype": entry.fstype, "source": entry.source}
                                           if entry else {})}  # fmt: skip
