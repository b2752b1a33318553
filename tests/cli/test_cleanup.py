"""`contio cleanup` after a SIGKILLed `contio run`, killed in each phase, under the process
and the Docker runtime: it lists (`--dry-run`) and removes the run's local-dir data
directories, its Docker containers (database server, image holds, engine client),
network and volumes; no engine outlives the run; a live run is left alone.

Each run gets its own temp directory (TMPDIR), so the `contio-*` directories looked at
are this test's. A phase is waited for by what can be seen of it (the data directory's
owner lock, the engine processes and their arguments, the run's labelled containers),
never by sleeping.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import docker
import pytest

from contio.containers import labels

PROCESS_SPEC = """\
name: killed
backend: {type: local-dir}
factors: {target: [lsm], workload: [workloada], threads: [1]}
stop: {rule: fixed-time, seconds: 120, repetitions: 1}
properties: {recordcount: 200000}
"""

DOCKER_SPEC = """\
name: killdock
runtime: {type: docker}
backend: {type: local-dir}
factors: {target: [redis], workload: [workloada], threads: [1]}
stop: {rule: fixed-time, seconds: 120, repetitions: 1}
properties: {recordcount: 20000}
"""

WAIT_S = 600.0  # first docker runs may build images


class Run:
    """A `contio run` in its own working and temp directory."""

    def __init__(self, tmp_path: Path, spec: str):
        self.tmp = tmp_path / "tmp"
        self.tmp.mkdir()
        (tmp_path / "spec.yaml").write_text(spec)
        self.env = {**os.environ, "TMPDIR": str(self.tmp)}
        self.cwd = tmp_path
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "contio", "run", "spec.yaml"],
            cwd=tmp_path, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        self.pid = self.proc.pid

    def wait_for(self, what: str, seen: Callable[[], bool]) -> None:
        deadline = time.monotonic() + WAIT_S
        while not seen():
            if self.proc.poll() is not None:
                pytest.fail(f"the run ended before {what}: {self.proc.stderr.read()}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {what} within {WAIT_S} s")
            time.sleep(0.05)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc.stderr.close()

    def cleanup(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "contio", "cleanup", *args],
            cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=300,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    def data_dirs(self, pattern: str = "contio-*") -> list[Path]:
        return sorted(self.tmp.glob(pattern))


def engines_of(pid: int) -> list[list[str]]:
    """The argv of every live engine started by process `pid` (its environment names it)."""
    found = []
    marker = f"CONTIO_ENGINE_PARENT={pid}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            argv = (entry / "cmdline").read_bytes().decode().split("\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue  # exited meanwhile, or not ours to read
        if state != "Z":
            found.append(argv)
    return found


def engine_in(pid: int, phase: str) -> bool:
    return any(len(argv) > 1 and argv[1] == phase for argv in engines_of(pid))


def assert_no_engine_outlives(pid: int) -> None:
    # The kernel kills them as their parent dies; they may take a moment to be reaped.
    deadline = time.monotonic() + 30
    while engines_of(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not engines_of(pid), f"engines outlived the killed run: {engines_of(pid)}"


def assert_cleanup_removes_the_data_dirs(run: Run) -> None:
    left = run.data_dirs()
    assert left, "the kill left no data directory (nothing to test)"
    listed = run.cleanup("--dry-run")
    for directory in left:
        assert f"data-dir {directory.name} ({directory})" in listed.stdout, listed.stdout
    assert run.data_dirs() == left, "--dry-run removed something"
    removed = run.cleanup()
    assert "removed" in removed.stdout
    assert run.data_dirs() == []


@pytest.mark.parametrize("phase", ["data-dir", "load", "run"])
def test_cleanup_after_a_killed_process_run(tmp_path, engine, phase):
    run = Run(tmp_path, PROCESS_SPEC)
    try:
        if phase == "data-dir":  # the backend's root, locked, before or as the load starts
            run.wait_for(
                "data directory", lambda: bool(run.data_dirs("contio-killed-*/owner.lock"))
            )
        else:
            run.wait_for(f"{phase} engine", lambda: engine_in(run.pid, phase))
    finally:
        run.kill()
    assert_no_engine_outlives(run.pid)
    assert_cleanup_removes_the_data_dirs(run)


def test_cleanup_leaves_a_live_process_run_alone(tmp_path, engine):
    run = Run(tmp_path, PROCESS_SPEC)
    try:
        run.wait_for("run engine", lambda: engine_in(run.pid, "run"))
        [root] = run.data_dirs("contio-killed-*")
        listed = run.cleanup()
        assert root.name not in listed.stdout
        assert root.is_dir() and engine_in(run.pid, "run")
    finally:
        run.proc.send_signal(signal.SIGINT)
        run.proc.communicate(timeout=120)
    assert run.data_dirs() == []  # its own teardown removed it


# -- docker ----------------------------------------------------------------------------------


def owned_by(client: docker.DockerClient, pid: int) -> dict[str, list[str]]:
    """Names of the containers, networks and volumes the process `pid` labelled."""
    selector = {"label": f"{labels.PID}={pid}"}
    return {
        "container": [
            c.name for c in client.containers.list(all=True, filters=selector, ignore_removed=True)
        ],
        "network": [n.name for n in client.networks.list(filters=selector)],
        "volume": [v.name for v in client.volumes.list(filters=selector)],
    }


def containers_with_role(client: docker.DockerClient, pid: int, role: str) -> list[str]:
    selector = {"label": [f"{labels.PID}={pid}", f"{labels.ROLE}={role}"]}
    return [c.name for c in client.containers.list(all=True, filters=selector, ignore_removed=True)]


def docker_phase_seen(client: docker.DockerClient, pid: int, phase: str) -> Callable[[], bool]:
    """Whether the run `pid` has reached `phase`, from its labelled containers."""
    if phase == "holds":  # images ready and held: contio/engine and contio/redis
        return lambda: len(containers_with_role(client, pid, "image-hold")) == 2
    if phase == "server":  # the backend's directory made, the database starting on it
        return lambda: bool(containers_with_role(client, pid, "db-redis"))
    return lambda: any(f"-{phase}" in n for n in containers_with_role(client, pid, "engine"))


@pytest.mark.docker
@pytest.mark.parametrize("phase", ["holds", "server", "load", "run"])
def test_cleanup_after_a_killed_docker_run(tmp_path, docker_client, phase):
    run = Run(tmp_path, DOCKER_SPEC)
    try:
        run.wait_for(f"{phase} containers", docker_phase_seen(docker_client, run.pid, phase))
    finally:
        run.kill()
    left = owned_by(docker_client, run.pid)
    assert (left["container"] and left["network"]) or phase == "holds", left

    listed = run.cleanup("--dry-run")
    for kind, names in left.items():
        for name in names:
            assert f"  {kind} {name}\n" in listed.stdout, (name, listed.stdout)
    assert owned_by(docker_client, run.pid) == left, "--dry-run removed something"
    if phase != "holds":
        assert run.data_dirs("contio-killdock-*"), "no data directory was left (nothing to test)"

    run.cleanup()
    assert owned_by(docker_client, run.pid) == {"container": [], "network": [], "volume": []}
    assert run.data_dirs() == []


@pytest.mark.docker
def test_cleanup_leaves_a_live_docker_run_alone(tmp_path, docker_client):
    run = Run(tmp_path, DOCKER_SPEC)
    try:
        run.wait_for("run containers", docker_phase_seen(docker_client, run.pid, "run"))
        before = owned_by(docker_client, run.pid)
        listed = run.cleanup()
        for names in before.values():
            assert not any(name in listed.stdout for name in names), listed.stdout
        assert owned_by(docker_client, run.pid) == before
        assert run.data_dirs("contio-killdock-*")
    finally:
        run.proc.send_signal(signal.SIGINT)
        run.proc.communicate(timeout=300)
    assert owned_by(docker_client, run.pid) == {"container": [], "network": [], "volume": []}
    assert run.data_dirs() == []
