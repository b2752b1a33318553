"""Every GlusterFS volume type, created on the shared 3-node cluster, FUSE-mounted on the
host, written and read back by the engine (checksummed blocks, O_DIRECT), then removed
without leaving mounts, volumes or bricks."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from contio.backends import registry
from contio.gluster.local_cluster import LocalCluster
from contio.gluster.node_access import gluster_xml
from contio.host import mountinfo

TYPES = [
    ({"volume_type": "distributed"}, "Distribute", 3),
    ({"volume_type": "replicated", "replica": 3}, "Replicate", 3),
    ({"volume_type": "distributed-replicated", "replica": 3}, "Distributed-Replicate", 6),
    ({"volume_type": "dispersed", "disperse": 3, "redundancy": 1}, "Disperse", 3),
    ({"volume_type": "distributed-dispersed", "disperse": 3}, "Distributed-Disperse", 6),
]


@pytest.mark.parametrize(
    ("options", "type_str", "bricks"), TYPES, ids=[t[0]["volume_type"] for t in TYPES]
)
def test_volume_type_is_created_mounted_and_used(
    gluster_cluster, no_leaks, tmp_path, engine_verify, options, type_str, bricks
):
    backend = registry.create("gluster", {**options, "cluster": gluster_cluster})
    with backend:
        described = backend.describe()
        info = described["volume_info"]
        assert info["type"] == type_str
        assert info["brick_count"] == bricks
        assert described["mount"]["fstype"] == "fuse.glusterfs"
        # Bricks of each replica/disperse set sit on distinct nodes (distinct addresses).
        size = {"Replicate": 3, "Distributed-Replicate": 3, "Disperse": 3}.get(type_str, 3)
        if type_str != "Distribute":
            for start in range(0, bricks, size):
                hosts = {b.split(":")[0] for b in info["bricks"][start : start + size]}
                assert len(hosts) == size
        # Two containers' directories: on distributed types their files hash to
        # different bricks' sets.
        for container in ("db-1", "db-2"):
            location = backend.data_location(container)
            verified = engine_verify(location.path, tmp_path / container, direct=True)
            assert verified.checked == verified.written == 128
        mount_point = str(backend.data_root())
        volume = backend.volume_name
    assert not mountinfo.is_mount_point(mount_point)
    listed = gluster_xml(LocalCluster.open(gluster_cluster).controller(), ["volume", "list"])
    assert volume not in [v.text for v in listed.iter("volume")]
    for disks in LocalCluster.open(gluster_cluster).brick_roots():
        for disk in disks:
            assert not os.path.exists(f"{disk}/{volume}"), "brick directory left behind"


def test_cluster_status_and_bad_cli_options(gluster_cluster, run_contio):
    status = run_contio("cluster", "status", "--name", gluster_cluster)
    assert status.returncode == 0, status.stderr
    described = json.loads(status.stdout)
    assert [n["running"] for n in described["nodes"]] == [True, True, True]
    addresses = [n["address"] for n in described["nodes"]]
    assert len(set(addresses)) == 3
    assert all(d["fstype"] == "xfs" for n in described["nodes"] for d in n["brick_disks"])
    bad = run_contio("cluster", "up", "--name", "other", "--nodes", "2")
    assert bad.returncode == 2
    assert "--nodes" in bad.stderr and "at least 3" in bad.stderr
    again = run_contio("cluster", "up", "--name", gluster_cluster, "--subnet", "10.215.0.0/24")
    assert again.returncode == 2 and "already exists" in again.stderr
    slow = run_contio("cluster", "up", "--name", "other", "--disk-bandwidth", "fast")
    assert slow.returncode == 2
    assert "--disk-bandwidth" in slow.stderr and "'fast'" in slow.stderr, slow.stderr


def _loop_devices() -> dict[str, dict]:
    listed = subprocess.run(
        ["losetup", "--list", "--json", "--output", "NAME,BACK-FILE,DIO"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return {d["name"]: d for d in json.loads(listed or "{}").get("loopdevices", [])}


def test_backend_builds_and_removes_its_own_cluster_when_none_is_up(
    gluster_cluster, no_leaks, host_snapshot, tmp_path, engine_verify
):
    # (gluster_cluster: only to skip where glusterd cannot run; this test builds its own,
    # with slow brick disks: loop devices in direct I/O over paced FUSE files)
    before = host_snapshot()
    backend = registry.create(
        "gluster",
        {"volume_type": "dispersed", "cluster": "ctauto", "disks_per_node": 1,
         "disk_size": "512MiB", "subnet": "10.218.0.0/24", "disk_bandwidth": "200MB/s"},
    )  # fmt: skip
    with backend:
        described = backend.describe()
        assert described["cluster"]["name"] == "ctauto"
        assert described["cluster"]["config"]["disk_bandwidth"] == 200_000_000
        assert described["volume_info"]["type"] == "Disperse"
        paced = [
            d for d in _loop_devices().values()
            if "/clusters/ctauto/" in (d["back-file"] or "") and "/slowdev1/" in d["back-file"]
        ]  # fmt: skip
        assert len(paced) == 3 and all(d["dio"] in (True, 1, "1") for d in paced), paced
        location = backend.data_location("db")
        verified = engine_verify(location.path, tmp_path, direct=True, size="1m")
        assert verified.checked == verified.written == 16
    before.assert_nothing_new()
    assert not LocalCluster.exists("ctauto")


def _mask_cpus(mask: str) -> set[int]:
    value = int(mask.replace(",", ""), 16)
    return {cpu for cpu in range(value.bit_length()) if value >> cpu & 1}


def test_each_node_link_is_received_on_one_cpu(gluster_cluster):
    """Both ends of every node's veth steer their packets to a single CPU's backlog, so
    a sender moving between CPUs cannot reorder them (docs/backends.md)."""
    state = LocalCluster.open(gluster_cluster).state
    used = []
    for node in state.nodes:
        veth = f"{state.bridge[:-2]}v{node.index}"
        host_side = Path(f"/sys/class/net/{veth}/queues/rx-0/rps_cpus").read_text().strip()
        node_side = subprocess.run(
            ["ip", "netns", "exec", node.netns, "cat", "/sys/class/net/eth0/queues/rx-0/rps_cpus"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        assert len(_mask_cpus(host_side)) == 1 and _mask_cpus(node_side) == _mask_cpus(host_side)
        used.append(_mask_cpus(host_side).pop())
    assert len(set(used)) == min(len(state.nodes), os.cpu_count() or 1)  # spread over CPUs
