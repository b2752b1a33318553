"""A node stopped while the engine writes, as a spec event: on a dispersed 3 (redundancy
1) and a replicated 3 volume, `contio run` with `events: [{type: stop-node, …}]` keeps
writing while the node is down, the engine's verify mode reads every block it wrote back
(checksums in each block's header) with no mismatch, and self-heal completes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

SPEC = {
    "name": "gluster-node-stop",
    "backends": {
        "dispersed": {
            "type": "gluster",
            "volume_type": "dispersed",
            "disperse": 3,
            "redundancy": 1,
        },
        "replicated": {"type": "gluster", "volume_type": "replicated", "replica": 3},
    },
    "factors": {
        "backend": ["dispersed", "replicated"],
        "workload": [
            {
                "kind": "fio",
                "name": "verified-writes",
                # Paced random writes (a permutation per pass, so every block written is
                # known), each block checksummed and read back when the job ends.
                "job": {
                    "rw": "randwrite",
                    "bs": "64k",
                    "size": "16m",
                    "verify": "crc32c",
                    "ioengine": "psync",
                    "fsync": 16,
                },
            }
        ],
    },
    "events": [{"type": "stop-node", "node": 2, "at": 1.0, "restart_at": 4.0, "heal_timeout": 240}],
    "stop": {"rule": "fixed-time", "seconds": 7, "repetitions": 1},
}


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


@pytest.mark.parametrize("backend", ["dispersed", "replicated"])
def test_node_stop_while_writing_loses_nothing(node_stop_run, backend):
    index = _cell_dirs(node_stop_run)
    [rep] = list(index[backend].iterdir())
    [record] = json.loads((rep / "events.json").read_text())
    assert record["error"] is None
    assert record["stopped_at"] is not None and record["restarted_at"] is not None
    assert record["healed_at"] is not None and record["heal_seconds"] is not None
    run = json.loads((rep / "run-c1.json").read_text())
    assert run["status"] == "ok", run["error"]
    verify = run["io"]["verify"]
    assert verify["blocks_checked"] > 0 and verify["mismatches"] == 0, verify
    # The engine started just after the schedule's clock: seconds strictly inside the
    # outage (one second of margin each side) must have completed writes.
    down = [s["ops"] for s in run["timeseries"]
            if record["stopped_at"] + 1 < s["t"] < record["restarted_at"] - 1]  # fmt: skip
    assert down and sum(down) > 0, run["timeseries"]
    print(  # shown with -s; the numbers quoted in docs/backends.md
        f"{backend}: {run['operations']} writes, {verify['blocks_checked']} blocks verified, "
        f"heal {record['heal_seconds']:.1f} s after restart"
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
