"""`contio cluster down` finds and removes what a killed `contio cluster up` had made."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from contio.host.state_dir import state_root


def _journal_kinds(name: str) -> list[str]:
    try:
        entries = json.loads((state_root() / "clusters" / name / "journal.json").read_text())
    except (OSError, ValueError):
        return []
    return [e["kind"] for e in entries]


def test_down_after_up_was_killed_midway(gluster_cluster, run_contio, host_snapshot):
    # (gluster_cluster: only to skip where glusterd cannot run; this test builds its own)
    before = host_snapshot()
    up = subprocess.Popen(
        [sys.executable, "-m", "contio", "cluster", "up", "--name", "crash", "--nodes", "3",
         "--disks-per-node", "1", "--disk-size", "512MiB", "--subnet", "10.217.0.0/24"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        # Kill it once some node has its namespace, a mounted brick disk and glusterd.
        while "netns-processes" not in _journal_kinds("crash") and up.poll() is None:
            assert time.monotonic() < deadline, "cluster up made no progress"
            time.sleep(0.05)
    finally:
        up.send_signal(signal.SIGKILL)
        up.wait()
    assert _journal_kinds("crash"), "nothing was journaled before the kill"
    down = run_contio("cluster", "down", "--name", "crash")
    assert down.returncode == 0, down.stderr
    before.assert_nothing_new()
    assert not (state_root() / "clusters" / "crash").exists()
