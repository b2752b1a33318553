"""What `contio qos up` started is stopped by `contio qos down` and by `contio cluster
down` (through the cluster's undo journal), with real processes in their own sessions
standing in for the coordinator and the agents (starting them for real needs a Gluster
cluster: tests/backends/test_gluster_middleware.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from contio.errors import QosConfigError
from contio.gluster.local_cluster import cluster_root
from contio.host.process import start_ticks
from contio.host.undo_journal import UndoJournal
from contio.middleware import deployment, ssh_agents
from contio.middleware.deployment import Deployment, Started


@pytest.fixture
def started(tmp_path, monkeypatch):
    """A deployment of cluster 'fake' whose processes are `sleep`s, recorded as `up` does."""
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path))
    procs = [subprocess.Popen(["sleep", "600"], start_new_session=True) for _ in range(3)]
    deployment.middleware_root("fake").mkdir(parents=True)
    as_started = [Started(p.pid, start_ticks(p.pid) or 0) for p in procs]
    Deployment("fake", "http://127.0.0.1:1", "static", {"node1": 1e8, "node2": 1e8},
               as_started[0], {"node1": as_started[1], "node2": as_started[2]}).save()  # fmt: skip
    UndoJournal(cluster_root("fake") / "journal.json").record("qos-middleware", cluster="fake")
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def test_cluster_down_stops_the_middleware_through_the_clusters_journal(started):
    UndoJournal(cluster_root("fake") / "journal.json").undo_all()  # what cluster down does
    assert [p.wait(timeout=20) for p in started] == [-15, -15, -15]  # SIGTERM each
    assert not (deployment.middleware_root("fake") / "deployment.json").exists()


def test_qos_down_stops_it_and_forgets_the_journal_entry(started):
    assert deployment.down("fake").was_up
    assert all(p.wait(timeout=20) == -15 for p in started)
    assert UndoJournal(cluster_root("fake") / "journal.json").find("qos-middleware") == []
    assert not deployment.down("fake").was_up  # nothing up any more


def test_the_coordinators_address_for_an_inventory():
    # Default: the address this machine reaches the first host from (no packet sent).
    assert ssh_agents.listen_address(None, "127.0.0.1") == ("127.0.0.1", None)
    assert ssh_agents.listen_address("10.0.0.5:24100", "x") == ("10.0.0.5", 24100)
    assert ssh_agents.listen_address("10.0.0.5", "x") == ("10.0.0.5", None)
    for bad in ("10.0.0.5:http", ":80", "10.0.0.5:70000"):
        with pytest.raises(QosConfigError, match="--listen"):
            ssh_agents.listen_address(bad, "x")


def test_qos_up_refuses_bad_input_before_contacting_any_host(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)

    def contio(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "contio", "qos", "up", *args],
                              capture_output=True, text=True, check=False)  # fmt: skip

    no_inventory = contio("--listen", "10.0.0.5:24080")
    assert no_inventory.returncode == 2 and "--listen: only with --inventory" in no_inventory.stderr
    hosts = [{"host": f"root@192.0.2.{i}", "bricks": ["/data/d1"]} for i in (1, 2, 3)]
    Path("hosts.yaml").write_text(yaml.safe_dump({"nodes": hosts, "contio_command": []}))
    empty = contio("--inventory", "hosts.yaml")
    assert empty.returncode == 2 and "contio_command" in empty.stderr
    Path("hosts.yaml").write_text(yaml.safe_dump({"nodes": hosts}))
    named = contio("--inventory", "hosts.yaml", "--cluster", "../prod")
    assert named.returncode == 2 and "--cluster: must match" in named.stderr
    cluster_root("contio").mkdir(parents=True)  # a local cluster of the default name
    taken = contio("--inventory", "hosts.yaml")
    assert taken.returncode == 2 and "--cluster: 'contio' is a local cluster" in taken.stderr
    bad_policy = contio("--inventory", "hosts.yaml", "--policy", "fair")
    assert bad_policy.returncode == 2 and "work-conserving" in bad_policy.stderr
    assert not (tmp_path / "qos-inventories").exists()  # nothing started, nothing written
