"""Ctrl-C during a run's final teardown (issue 29, point D): both cells were `done`, but
the run exited 130 without report.html, summary.csv or backends.json, and left the
local-dir backend's root in the user's folder until `contio cleanup --data-dir`.

The teardown now finishes first, whatever signals come (a second one included), the
summary and the report are written, and the user's folder holds nothing new. The
signals are delivered while the teardown waits at a gate the test holds
(`CONTIO_TEARDOWN_GATE`), so they land inside the teardown every time."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contio.errors import Interrupted
from contio.run.teardown_signals import TEARDOWN_GATE_ENV, TeardownSignals
from contio.signals import interrupts_raise

SPEC = """name: teardown
backend: {type: local-dir, path: DATA}
factors: {workload: [workloadc, workloada]}
properties: {recordcount: 20, operationcount: 50}
stop: {repetitions: 1}
"""


def wait_for(what: str, condition, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if process.poll() is not None:
            pytest.fail(f"contio ended ({process.returncode}) before {what}")
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {seconds:.0f} s")
        time.sleep(0.05)


def test_signals_during_the_teardown_are_noted_and_the_teardown_goes_on():
    said: list[str] = []
    held = TeardownSignals(said.append)
    with interrupts_raise():
        held.hold()
        os.kill(os.getpid(), signal.SIGINT)  # would raise Interrupted without the hold
        os.kill(os.getpid(), signal.SIGTERM)
        held.release()
        with pytest.raises(Interrupted):  # the run's own handler is back
            os.kill(os.getpid(), signal.SIGINT)
    assert held.signum == signal.SIGINT
    assert len(said) == 2 and "finishing it first" in said[0] and "ends by itself" in said[1]


def test_ctrl_c_twice_during_the_final_teardown_still_writes_the_report(tmp_path, engine):
    user = tmp_path / "user-folder"  # the local-dir path: the user's own folder
    user.mkdir()
    (user / "theirs.txt").write_text("the user's\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "my.yaml").write_text(SPEC.replace("DATA", str(user)))
    gate = tmp_path / "gate"
    env = {**os.environ, TEARDOWN_GATE_ENV: str(gate)}
    run = subprocess.Popen(
        [sys.executable, "-m", "contio", "run", "my.yaml"],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for("the teardown", lambda: Path(f"{gate}.reached").exists(), run)
        roots = [p for p in user.iterdir() if p.name.startswith("contio-")]
        assert roots, "the backend's root is not there during the teardown (nothing to test)"
        run.send_signal(signal.SIGINT)
        run.send_signal(signal.SIGINT)  # a second Ctrl-C: the teardown must still finish
        Path(f"{gate}.go").touch()  # let the teardown go on
        out, err = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 128 + signal.SIGINT, err
    assert "Traceback" not in err, err
    assert "the teardown finished and the results and report are complete" in err
    [folder] = (work / "results").iterdir()
    for name in ("report.html", "summary.csv", "backends.json", "findings.json"):
        assert (folder / name).is_file(), f"{name} missing: {err}"
    with (folder / "summary.csv").open(newline="") as rows:
        assert [row["status"] for row in csv.DictReader(rows)] == ["done", "done"]
    assert sorted(p.name for p in user.iterdir()) == ["theirs.txt"]  # nothing left of contio's
    assert (user / "theirs.txt").read_text() == "the user's\n"
    assert f"report: {folder / 'report.html'}" in out
