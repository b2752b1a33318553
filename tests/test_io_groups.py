"""Block I/O groups of a run (`contio.io_groups` on `contio.qos`), on this host's real
cgroups: an interrupted run with throttled groups removes its cgroups and their limits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from contio.qos import hierarchy

SPEC = """
name: groups
backends:
  dir: {type: local-dir, path: DATA}
io_controls:
  tight: {groups: [{write_bps: 1000000}, {}]}
factors:
  workload:
    - {kind: fio, name: w, job: {rw: write, bs: 64k, size: 4m, direct: 1}}
  containers: [2]
  io_controls: [tight]
stop: {rule: fixed-time, seconds: 600, repetitions: 1}
"""


def _contio_groups() -> set[str]:
    _, root = hierarchy.detect()
    parent = root / "contio"
    return {p.name for p in parent.iterdir() if p.is_dir()} if parent.exists() else set()


def test_an_interrupted_controlled_run_leaves_no_cgroup(tmp_path, engine):
    if os.geteuid() != 0:
        pytest.skip("cgroup files can only be written as root")
    before = _contio_groups()
    data = tmp_path / "data"
    data.mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.replace("DATA", str(data)))
    proc = subprocess.Popen(
        [sys.executable, "-m", "contio", "run", spec, "--results-dir", tmp_path / "out"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    seen: set[str] = set()
    # Wait until the run phase has made its groups (polling for them, not a duration).
    while len(seen) < 2 and proc.poll() is None and time.monotonic() < deadline:
        seen = _contio_groups() - before
        time.sleep(0.05)
    assert len(seen) == 2, proc.stderr.read() if proc.stderr else ""
    version, root = hierarchy.detect()
    [throttled] = [n for n in seen if n.endswith("-g1")]
    control = "blkio.throttle.write_bps_device" if version == "v1" else "io.max"
    assert "1000000" in (root / "contio" / throttled / control).read_text()
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGINT, err
    assert not (_contio_groups() & seen), "the interrupted run left its cgroups"
