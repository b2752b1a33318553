"""A node stopped while the engine writes, as a spec event: on a dispersed 3 (redundancy
1) and a replicated 3 volume, `contio run` with `events: [{type: stop-node, …}]` goes
on through the outage, the time series shows the dip, every block the run wrote is read
back with its checksum and the run's generation, and the self-heal completes.

The node is stopped in `power-off` mode: cut off the network, then its processes killed,
so the FUSE client hears nothing and waits `network.ping-timeout` (6 s here) before it
gives the node up; that stall is the dip. (With mode `kill` the client sees its
connections reset at once, and on this 2-CPU machine writes go *faster* while a node is
down: one brick process fewer competes for the CPUs.)

Writes and the read-back use O_DIRECT (`direct: 1`) with `performance.strict-o-direct`
on, so neither the kernel's page cache of the FUSE mount nor Gluster's write-behind can
answer for the bricks. The run writes one generation above its load (contio.workload.file_kinds),
so a lost write reads back as the load's block and fails the check.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

BLOCK = 64 * 1024
FILE_SIZE = 64 * 1024 * 1024
SPEC = yaml.safe_load(
    """
name: gluster-node-stop
backends:
  dispersed: {type: gluster, volume_type: dispersed, disperse: 3, redundancy: 1,
              volume_options: &options {performance.strict-o-direct: "on",
                                        network.ping-timeout: "6"}}
  replicated: {type: gluster, volume_type: replicated, replica: 3, volume_options: *options}
factors:
  backend: [dispersed, replicated]
  workload:
    # Random writes (a permutation per pass, so the blocks written are known), each
    # block checksummed, read back when the run ends.
    - kind: fio
      name: verified-writes
      job: {rw: randwrite, bs: 64k, size: 64m, verify: crc32c, ioengine: psync, direct: 1,
            fsync: 16}
events:
  - {type: stop-node, node: 2, at: 5, restart_at: 13, mode: power-off, heal_timeout: 240}
stop: {rule: fixed-time, seconds: 17, repetitions: 1}
"""
)
# How late the engine's clock may start after the schedule's (process start-up); both
# clocks start when the run phase does.
CLOCK_SLACK = 0.5

_RUNS: dict[str, Path] = {}


@pytest.fixture
def node_stop_run(gluster_cluster, tmp_path_factory, host_snapshot) -> Path:
    """One `contio run` of the spec for both tests; it must leave nothing behind."""
    if "folder" in _RUNS:
        return _RUNS["folder"]
    # Host processes only: the restarted node's glusterd is a new process, rightly.
    before = host_snapshot(host_processes_only=True)
    root = tmp_path_factory.mktemp("faults")
    spec = {**SPEC, "backends": {k: {**v, "cluster": gluster_cluster}
                                 for k, v in SPEC["backends"].items()}}  # fmt: skip
    (root / "spec.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    done = subprocess.run(
        [sys.executable, "-m", "contio", "run", root / "spec.yaml", "--results-dir", root / "out"],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    before.assert_nothing_new()
    [_RUNS["folder"]] = list((root / "out").iterdir())
    return _RUNS["folder"]


def outage_seconds(timeseries: list[dict], record: dict) -> tuple[list[int], list[int]]:
    """ops of the whole seconds before the stop, and of those inside the outage.

    From the event record's own times: `stopped_at` and `restart_began_at` on the
    schedule's clock; the engine's second t covers (t-1, t] on its clock, which starts
    up to CLOCK_SLACK later. The first second (start-up) is left out.
    """
    stopped, restarting = record["stopped_at"], record["restart_began_at"]
    before = [s["ops"] for s in timeseries if 2 <= s["t"] <= stopped - CLOCK_SLACK]
    during = [s["ops"] for s in timeseries
              if s["t"] - 1 >= stopped and s["t"] <= restarting - CLOCK_SLACK]  # fmt: skip
    return before, during


def test_outage_seconds_come_from_the_records():
    series = [{"t": t, "ops": 100 if t < 6 or t > 9 else 0} for t in range(1, 15)]
    record = {"stopped_at": 5.07, "restart_began_at": 13.0}
    assert outage_seconds(series, record) == ([100, 100, 100], [0, 0, 0, 100, 100, 100])


@pytest.mark.parametrize("backend", ["dispersed", "replicated"])
def test_node_stop_while_writing_loses_nothing(node_stop_run, backend):
    [rep] = list(_cell_dirs(node_stop_run)[backend].iterdir())
    [record] = json.loads((rep / "events.json").read_text())
    assert record["error"] is None and record["mode"] == "power-off"
    assert record["stopped_at"] is not None and record["restart_began_at"] is not None
    assert record["restarted_at"] is not None
    # Self-heal: every brick connected with zero entries to heal (`heal info`).
    assert record["healed_at"] is not None and record["heal_seconds"] is not None

    run = json.loads((rep / "run-c1.json").read_text())
    assert run["status"] == "ok", run["error"]
    # The dip: the client stalls for network.ping-timeout (6 s) once the node is gone, so
    # the first three whole seconds of the outage lie inside the stall whatever the
    # machine's load. (Later ones may run faster than before the stop: one brick fewer.)
    before, during = outage_seconds(run["timeseries"], record)
    assert len(before) >= 2 and len(during) >= 3, (record, run["timeseries"])
    dip = during[:3]
    assert max(dip) < 0.5 * statistics.median(before), (before, during)
    assert statistics.mean(dip) < statistics.mean(before), (before, during)

    # Every block the run wrote, read back (O_DIRECT) with the run's generation.
    writes = run["operations_by_type"]["WRITE"]["count"]
    assert run["operations_by_type"].get("WRITE-FAILED", {}).get("count", 0) == 0
    verify = run["io"]["verify"]
    assert verify["generation"] == 2 and verify["error"] is None
    assert verify["mismatches"] == 0, verify["first_mismatches"]
    assert verify["blocks_checked"] == min(writes, FILE_SIZE // BLOCK) > 0
    print(  # shown with -s; the numbers quoted in docs/backends.md
        f"{backend}: {writes} writes, {verify['blocks_checked']} blocks verified; ops/s "
        f"before {before}, during the outage {during}; restart took "
        f"{record['restarted_at'] - record['restart_began_at']:.1f} s, heal "
        f"{record['heal_seconds']:.1f} s after"
    )


def _cell_dirs(folder: Path) -> dict[str, Path]:
    """Backend level → the cell's raw folder, from the index."""
    import sqlite3

    db = sqlite3.connect(folder / "index.sqlite")
    try:
        rows = db.execute("SELECT cell_index, levels FROM cells").fetchall()
    finally:
        db.close()
    return {json.loads(levels)["backend"]: folder / "raw" / f"cell{index:03d}"
            for index, levels in rows}  # fmt: skip
