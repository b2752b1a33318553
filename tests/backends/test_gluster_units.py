"""Gluster pieces that need no cluster: layouts and their validation, brick placement,
SSH command construction (no SSH hosts here), heal-info parsing of captured output."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pydantic import ValidationError

from contio.backends import registry
from contio.errors import BackendOptionError, ClusterError
from contio.gluster.faults import FaultSchedule, NodeStopEvent
from contio.gluster.inventory import SshCluster, start_argv, stop_argvs
from contio.gluster.layout import VolumeLayout, place_bricks
from contio.gluster.local_cluster import link_cpu_mask
from contio.gluster.node_access import NamespaceNode, SshNode
from contio.gluster.volume import GlusterVolume, pending_heal_entries

DATA = Path(__file__).parent.parent / "data" / "gluster"


@pytest.mark.parametrize(
    ("layout", "nodes", "bricks", "head"),
    [
        (VolumeLayout(volume_type="distributed"), 3, 3, ["volume", "create", "v", "transport"]),
        (VolumeLayout(volume_type="replicated"), 3, 3, ["volume", "create", "v", "replica", "3"]),
        (VolumeLayout(volume_type="distributed-replicated", replica=3), 3, 6, ["replica", "3"]),
        (VolumeLayout(volume_type="dispersed"), 3, 3, ["disperse", "3", "redundancy", "1"]),
        (VolumeLayout(volume_type="distributed-dispersed"), 3, 6, ["disperse", "3", "redundancy", "1"]),
    ],
)  # fmt: skip
def test_layout_counts_and_create_args(layout, nodes, bricks, head):
    assert layout.brick_count(nodes) == bricks
    names = [f"n{i}:/b" for i in range(bricks)]
    args = layout.create_args("v", names)
    assert args[-bricks:] == names
    start = next(i for i in range(len(args)) if args[i : i + len(head)] == head)
    assert start >= 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"volume_type": "replicated", "bricks": 4, "replica": 3}, "must equal 'replica'"),
        ({"volume_type": "distributed-replicated", "replica": 3, "bricks": 4}, "multiple of 'replica'"),
        ({"volume_type": "distributed-dispersed", "bricks": 3}, "at least 6"),
        ({"volume_type": "dispersed", "disperse": 4, "redundancy": 2}, "less than half"),
        ({"volume_type": "distributed", "replica": 2}, "'replica' applies to replicated"),
        ({"volume_type": "replicated", "redundancy": 1}, "dispersed types only"),
        ({"volume_type": "striped"}, "'distributed', 'replicated'"),
    ],
)  # fmt: skip
def test_layout_validation(fields, message):
    with pytest.raises(ValidationError, match=message):
        VolumeLayout(**fields)


def test_bricks_are_placed_so_each_set_spans_distinct_nodes():
    roots = [[f"/n{n}/d{d}" for d in range(2)] for n in range(3)]
    slots = place_bricks(roots, 6, 3)
    for start in (0, 3):
        assert len({s.node for s in slots[start : start + 3]}) == 3
    with pytest.raises(ValueError, match="needs 4 nodes"):
        place_bricks(roots, 4, 4)
    with pytest.raises(ValueError, match="7 bricks requested; the cluster has 6"):
        place_bricks(roots, 7, 1)


def test_backend_options_are_checked_against_the_brick_count():
    with pytest.raises(BackendOptionError) as err:
        registry.create("gluster", {"volume_type": "dispersed", "disperse": 3, "redundancy": 2})
    assert err.value.option == "redundancy"
    with pytest.raises(BackendOptionError) as err:
        registry.create("gluster", {"volume_type": "replicated", "replica": 3, "bricks": 2})
    assert err.value.option == "bricks"
    with pytest.raises(BackendOptionError, match="'nodes'"):
        registry.create("gluster", {"nodes": 2})
    with pytest.raises(BackendOptionError, match="volume_type"):
        registry.create("gluster", {"volume_type": "mirror"})


def test_node_commands_are_argv_lists():
    ns = NamespaceNode(address="10.0.0.11", glusterd_pid=4242)
    assert ns.argv(["gluster", "volume", "info"]) == [
        "nsenter", "--target=4242", "--mount", "--net", "--", "gluster", "volume", "info",
    ]  # fmt: skip
    ssh = SshNode(ssh_target="root@gs1", address="10.0.0.11", ssh_options=("-p", "2222"))
    argv = ssh.argv(["mkdir", "-p", "--", "/data/b 1; rm -rf /"])
    assert argv[:6] == ["ssh", "-o", "BatchMode=yes", "-p", "2222", "root@gs1"]
    # The remote shell sees one quoted word, not a second command.
    assert argv[-1] == "mkdir -p -- '/data/b 1; rm -rf /'"


def test_inventory_is_loaded_and_validated(tmp_path):
    inv = tmp_path / "hosts.yaml"
    inv.write_text(
        "nodes:\n"
        "  - {host: root@gs1, address: 10.0.0.11, bricks: [/data/d1]}\n"
        "  - {host: root@gs2, bricks: [/data/d1]}\n"
        "  - {host: gs3, bricks: [/data/d1, /data/d2]}\n"
    )
    cluster = SshCluster.load(inv)
    assert [n.address for n in cluster.nodes()] == ["10.0.0.11", "gs2", "gs3"]
    assert cluster.brick_roots()[2] == ["/data/d1", "/data/d2"]
    assert cluster.nodes()[0].argv(start_argv())[-1] == "systemctl start glusterd"
    assert [a[-1] for a in stop_argvs()] == ["glusterd", "glusterfsd"]
    inv.write_text("nodes:\n  - {host: gs1, bricks: []}\n")
    with pytest.raises(BackendOptionError, match="inventory"):
        SshCluster.load(inv)


def test_heal_info_parsing_of_captured_output():
    root = ET.parse(DATA / "heal-info-healed.xml").getroot()
    assert pending_heal_entries(root) == 0
    brick = root.find("healInfo/bricks/brick")
    assert brick is not None
    brick.find("status").text = "Transport endpoint is not connected"  # type: ignore[union-attr]
    brick.find("numberOfEntries").text = "-"  # type: ignore[union-attr]
    assert pending_heal_entries(root) is None


def test_node_stop_event_validation():
    NodeStopEvent(node=2, at=5, restart_at=10)
    with pytest.raises(ValidationError, match="later than 'at'"):
        NodeStopEvent(node=2, at=10, restart_at=5)
    with pytest.raises(ValidationError, match="Extra inputs"):
        NodeStopEvent(node=2, at=1, restart_at=2, kill="all")
    assert NodeStopEvent(node=2, at=1, restart_at=2).mode == "kill"
    with pytest.raises(ValidationError, match="'kill' or 'power-off'"):
        NodeStopEvent(node=2, at=1, restart_at=2, mode="reboot")


def test_power_off_is_refused_on_ssh_hosts_before_anything_stops(tmp_path):
    # Cutting a remote host off the network would also cut the SSH session that must
    # bring it back. Refused at start (no host is contacted: nodes() reads the inventory).
    inv = tmp_path / "hosts.yaml"
    inv.write_text("nodes:\n" + "".join(f"  - {{host: gs{i}, bricks: [/d]}}\n" for i in (1, 2, 3)))
    cluster = SshCluster.load(inv)
    event = NodeStopEvent(node=2, at=1, restart_at=2, mode="power-off")
    schedule = FaultSchedule(cluster, GlusterVolume(cluster, "v"), [event])
    with pytest.raises(ClusterError, match="'power-off' needs a local cluster"):
        schedule.start()
    assert schedule.records == []
    with pytest.raises(ClusterError, match="'power-off' needs a local cluster"):
        cluster.stop_node(2, isolate=True)


@pytest.mark.parametrize(
    ("cpu", "mask"), [(0, "1"), (1, "2"), (3, "8"), (31, "80000000"), (32, "1,00000000")]
)
def test_a_links_cpu_mask_names_one_cpu_in_the_kernels_format(cpu, mask):
    assert link_cpu_mask(cpu) == mask
