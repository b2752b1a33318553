"""Block I/O groups of a run (`contio.qos.io_groups` on `contio.qos`), on this host's real
cgroups: an interrupted run with throttled groups removes its cgroups and their limits;
a weight the disk cannot take (no BFQ under cgroup v1) skips its cell before it starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from contio.experiment.load import parse_spec_text
from contio.qos import hierarchy, io_groups
from contio.qos.control_spec import IoControlSet
from contio.qos.io_groups import CgroupIoController
from contio.results.index import ResultsIndex
from contio.run.runner import Runner

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


WEIGHTS = IoControlSet(groups=[{"weight": 50}, {"weight": 25}])
THROTTLE = IoControlSet(groups=[{"write_bps": 1 << 20}, {}])


def no_bfq(monkeypatch) -> None:
    # Stand-in for a kernel without the bfq module: this one offers BFQ on every disk.
    monkeypatch.setattr(io_groups, "available_schedulers", lambda disk: ["none", "mq-deadline"])


def test_weights_without_bfq_are_refused_under_v1_and_weighed_by_io_weight_under_v2(
    tmp_path, monkeypatch
):
    if os.geteuid() != 0:
        pytest.skip("cgroup files can only be written as root")
    controller = CgroupIoController(prefix="reason-test")
    assert controller.version == "v1"  # this host (tests/qos/test_qos_cgroups.py)
    assert controller.unavailable_reason(WEIGHTS, device=str(tmp_path)) is None  # BFQ here
    no_bfq(monkeypatch)
    reason = controller.unavailable_reason(WEIGHTS, device=str(tmp_path))
    assert reason is not None and "needs the BFQ I/O scheduler" in reason
    assert "available: none, mq-deadline" in reason
    assert controller.unavailable_reason(THROTTLE, device=str(tmp_path)) is None
    controller.version = "v2"
    assert controller.unavailable_reason(WEIGHTS, device=str(tmp_path)) is None


def test_a_path_off_any_disk_is_a_reason_not_a_failure_mid_phase():
    if os.geteuid() != 0:
        pytest.skip("cgroup files can only be written as root")
    reason = CgroupIoController(prefix="reason-test").unavailable_reason(THROTTLE, device="/proc")
    assert reason is not None and reason.startswith("io_controls: /proc is on proc")


def test_a_cell_whose_weights_cannot_be_had_is_skipped_before_it_starts(
    tmp_path, engine, monkeypatch
):
    if os.geteuid() != 0:
        pytest.skip("cgroup files can only be written as root")
    no_bfq(monkeypatch)
    before = _contio_groups()
    spec_text = """
name: no-bfq
backends: {dir: {type: local-dir, path: DATA}}
io_controls: {weights: {groups: [{weight: 50}, {weight: 25}]}}
factors:
  target: [null]
  workload: [workloadc]
  containers: [2]
  io_controls: [none, weights]
stop: {rule: fixed-ops, operations: 200, repetitions: 1}
properties: {recordcount: 10}
""".replace("DATA", str(tmp_path))
    spec = parse_spec_text(spec_text, "no-bfq.yaml", tmp_path)
    outcome = Runner(spec, spec_text, tmp_path / "out").run()
    index = ResultsIndex.open(outcome.folder.path)
    try:
        cells = {c["cell_index"]: c for c in index.cells()}
        weighted_runs = [r for r in index.phases("run") if r["cell_key"] == cells[2]["cell_key"]]
    finally:
        index.close()
    assert cells[1]["status"] == "done"
    assert cells[2]["status"] == "skipped"
    assert "needs the BFQ I/O scheduler" in cells[2]["reason"]
    assert weighted_runs == [] and _contio_groups() == before
