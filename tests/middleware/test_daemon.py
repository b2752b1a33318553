"""Detached services (`contio qos agent --daemon`, as started over SSH): real processes
that detach, name themselves in a PID file, and stop on SIGTERM."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from contio.cleanup import leftovers
from contio.middleware.daemon import PidFile, Started, stop_process

SERVICE = """
import signal, sys, threading
from pathlib import Path
from contio.middleware.daemon import PidFile, detach
pid_file = PidFile(Path(sys.argv[1]))
tell = detach(pid_file, Path(sys.argv[2]))
if sys.argv[3] == "fail":
    tell("the brick disk is gone")
    sys.exit(1)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
tell(None)
print("running", flush=True)
stop.wait()
pid_file.remove_own()
print("stopped", flush=True)
"""


def _start(tmp_path: Path, mode: str) -> subprocess.CompletedProcess[str]:
    # The caller's pipes are released once the service is up: with a service still
    # holding them, run() would wait for it and time out.
    argv = [sys.executable, "-c", SERVICE, str(tmp_path / "svc.pid"), str(tmp_path / "svc.log"),
            mode]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)


def test_a_detached_service_names_itself_and_stops_on_sigterm(tmp_path):
    started_by = _start(tmp_path, "ok")
    assert started_by.returncode == 0, started_by.stderr
    started = Started(**json.loads(started_by.stdout))
    pid_file = PidFile(tmp_path / "svc.pid")
    try:
        assert started.alive() and pid_file.running() == started
        again = _start(tmp_path, "ok")  # a second one refuses while the first runs
        assert again.returncode != 0 and f"already running as PID {started.pid}" in again.stderr
    finally:
        assert stop_process(started, timeout=10)
    assert not started.alive() and not pid_file.path.exists()
    assert (tmp_path / "svc.log").read_text().split() == ["running", "stopped"]


def test_a_service_that_fails_to_start_says_why_and_leaves_no_pid_file(tmp_path):
    failed = _start(tmp_path, "fail")
    assert failed.returncode == 1
    assert "error: the brick disk is gone" in failed.stderr
    assert not (tmp_path / "svc.pid").exists()


def test_a_pid_file_naming_an_exited_process_names_no_one(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    pid_file = PidFile(tmp_path / "old.pid")
    pid_file.path.write_text(f"{gone.stdout.strip()} 12345\n")
    assert pid_file.read() == Started(int(gone.stdout), 12345)
    assert pid_file.running() is None
    assert stop_process(Started(int(gone.stdout), 12345))  # nothing to stop, nothing signalled


def test_cleanup_removes_the_pid_file_of_a_killed_agent_only(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTIO_STATE_DIR", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    killed = PidFile(tmp_path / "qos-agents" / "node1.pid")
    killed.path.parent.mkdir()
    killed.path.write_text(f"{gone.stdout.strip()} 12345\n")
    running = PidFile(tmp_path / "qos-agents" / "node2.pid")
    running.write_own()  # this process: alive
    found = [f for f in leftovers.find() if f.kind == "qos-agent-pid"]
    assert [f.name for f in found] == ["node1"]
    leftovers.remove(found[0])
    assert not killed.path.exists() and running.path.exists()
