"""`contio cleanup`: a SIGKILLed run's loop device and mount are removed; a live backend's
are not (its owner lock is held)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from contio.backends import registry
from contio.host import loop_device, mountinfo
from contio.host.owner_lock import OwnerLock, owner_alive

LOOP_OPTIONS = {"mode": "device", "device": "loop", "format": "xfs", "loop_size": "512MiB"}

# A run stand-in: provision a loop-device backend, say where it lives, then wait to be killed.
PREPARE_AND_WAIT = textwrap.dedent(f"""
    import sys
    from contio.backends import registry
    backend = registry.create("local", {LOOP_OPTIONS!r})
    backend.provision()
    backend.new_directory("data")
    print(backend.workdir, flush=True)
    sys.stdin.read()
""")


def test_cleanup_removes_what_a_killed_run_left(state_dir, no_leaks, run_contio):
    run = subprocess.Popen(
        [sys.executable, "-c", PREPARE_AND_WAIT],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        workdir = Path(run.stdout.readline().strip())
        assert workdir.name, "the backend did not prepare"
        assert loop_device.attached_to(workdir), "no loop device to leave behind"
        listed = run_contio("cleanup", "--dry-run")
        # Not "nothing to clean up": dead Docker runs of other sessions may be listed too.
        assert str(workdir) not in listed.stdout, "a live run's backend was listed"
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    assert loop_device.attached_to(workdir), "the kill removed the device (nothing to test)"

    listed = run_contio("cleanup", "--dry-run")
    assert listed.returncode == 0, listed.stderr
    assert str(workdir) in listed.stdout and "loop(device=/dev/loop" in listed.stdout
    assert loop_device.attached_to(workdir), "--dry-run removed something"

    cleanup = run_contio("cleanup")
    assert cleanup.returncode == 0, cleanup.stderr
    assert f"backend {workdir.name} ({workdir})" in cleanup.stdout
    assert loop_device.attached_to(workdir) == []
    assert not any(e.mount_point.startswith(str(workdir)) for e in mountinfo.mounts())
    assert not workdir.exists()


def test_cleanup_leaves_a_live_backend_alone(state_dir, no_leaks, run_contio):
    backend = registry.create("local", LOOP_OPTIONS)
    with backend:
        data = backend.new_directory("data")
        (data / "kept").write_bytes(b"still in use")
        cleanup = run_contio("cleanup")
        assert cleanup.returncode == 0, cleanup.stderr
        assert str(backend.workdir) not in cleanup.stdout
        assert (data / "kept").read_bytes() == b"still in use"
        assert loop_device.attached_to(backend.workdir)


def test_owner_lock_is_free_once_released(tmp_path):
    lock = OwnerLock(tmp_path, "scratch")
    assert not owner_alive(tmp_path)
    lock.acquire()
    # flock locks belong to the open file: another open of the file in this process
    # conflicts like another process's would.
    assert owner_alive(tmp_path)
    lock.release()
    assert not owner_alive(tmp_path)
    assert not (tmp_path / "owner.lock").exists()
