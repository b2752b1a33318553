"""The slow device for real: a loop device whose backing file is served through the paced
FUSE file system (`contio-engine slowdev`) moves data at its cap, shared by everyone
using it, far below the same loop device unpaced; the daemon ends cleanly; `contio
cleanup` removes what a killed run left; bad options name the option."""

from __future__ import annotations

import mmap
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from contio.backends import registry
from contio.cleanup import leftovers
from contio.engine.invocation import find_engine
from contio.errors import BackendError, BackendOptionError, UsageError
from contio.host import loop_device, mountinfo, slow_device
from contio.host.undo_journal import UndoJournal
from contio.qos.calibration import calibrate

MB = 1_000_000
CAP = 20 * MB
LOOP = {"mode": "device", "device": "loop", "format": "xfs", "loop_size": "512MiB",
        "loop_direct_io": True}  # fmt: skip
SLOW = {**LOOP, "device_bandwidth": "20MB/s"}


def daemons_of(directory: Path) -> list[int]:
    """Pids of slow-device daemons serving a file under `directory`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        ours = b"slowdev" in argv and any(str(directory).encode() in a for a in argv)
        if ours and state != "Z":
            found.append(int(entry.name))
    return found


def read_direct(path: Path, seconds: list[float], index: int, block: int = 1 << 20) -> int:
    """Read `path` whole with O_DIRECT; store the time taken in `seconds[index]`."""
    buffer = mmap.mmap(-1, block)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    done, start = 0, time.perf_counter()
    try:
        while got := os.readv(fd, [buffer]):
            done += got
    finally:
        os.close(fd)
    seconds[index] = time.perf_counter() - start
    return done


def write_direct(path: Path, size: int, block: int = 1 << 20) -> None:
    buffer = mmap.mmap(-1, block)
    buffer.write(os.urandom(block))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
    try:
        for _ in range(size // block):
            os.write(fd, buffer)
        os.fsync(fd)
    finally:
        os.close(fd)


def test_slow_loop_device_moves_data_at_its_cap_far_below_the_plain_one(
    state_dir, tmp_path, no_leaks, engine_verify
):
    with registry.create("local", LOOP) as plain:
        fast = calibrate(plain.new_directory("calibration"), size=48 << 20)
    with registry.create("local", SLOW) as backend:
        described = backend.describe()
        assert described["slow_device"]["caps"] == {"bandwidth": CAP}
        assert described["slow_device"]["emulated"] is True
        assert described["device"]["loop_backing_file"].endswith("/slowdev/disk.img")
        # The data arrives intact through the paced file.
        verified = engine_verify(backend.new_directory("verify"), tmp_path, direct=True, size="4m")
        assert verified.checked == verified.written == 64
        slow = calibrate(backend.new_directory("calibration"), size=48 << 20)
        workdir = backend.workdir
    for rate in (slow.write_bps, slow.read_bps):
        # The cap, less a little (the fsync, the first request), never above it.
        assert 0.75 * CAP < rate < 1.05 * CAP, (slow, fast)
    # The same loop device unpaced is many times faster (a ratio: the machine is shared;
    # 206 and 362 MB/s written and read while a benchmark shared the host's disk).
    assert fast.read_bps > 5 * slow.read_bps, (slow, fast)
    assert fast.write_bps > 3 * slow.write_bps, (slow, fast)
    assert daemons_of(workdir) == []
    assert not workdir.exists()


def test_concurrent_readers_share_the_cap(state_dir, no_leaks):
    with registry.create("local", SLOW) as backend:
        data = backend.new_directory("data")
        files = [data / "a", data / "b"]
        for path in files:
            write_direct(path, 16 << 20)
        seconds = [0.0, 0.0]
        threads = [
            threading.Thread(target=read_direct, args=(path, seconds, i))
            for i, path in enumerate(files)
        ]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        both = time.perf_counter() - start
    total = 2 * (16 << 20)
    # Together they move the device's cap, not twice it; each gets a fair part of it.
    assert 0.75 * CAP < total / both < 1.05 * CAP, (both, seconds)
    for elapsed in seconds:
        assert (16 << 20) / elapsed < 0.75 * CAP, seconds


def test_daemon_ends_on_sigterm_and_the_page_cache_does_not_hide_the_cap(tmp_path, no_leaks):
    backing = tmp_path / "disk.img"
    backing.write_bytes(os.urandom(4 * MB))
    journal = UndoJournal(tmp_path / "journal.json")
    device = slow_device.serve(
        find_engine(), backing, tmp_path / "mnt", slow_device.DeviceCaps(read_bps=CAP), journal
    )
    try:
        assert device.file == tmp_path / "mnt" / "disk.img"
        mount = mountinfo.mount_of(device.file)
        assert (mount.fstype, mount.source) == ("fuse", slow_device.FS_SOURCE)
        # Buffered reads, twice: each goes to the daemon (direct I/O), none is cached.
        for _ in range(2):
            start = time.perf_counter()
            assert device.file.read_bytes() == backing.read_bytes()
            assert time.perf_counter() - start > 0.8 * 4 * MB / CAP
        os.kill(device.pid, signal.SIGTERM)
        child = slow_device._CHILDREN[device.pid]
        assert child.wait(timeout=10) == 0
        assert not mountinfo.is_mount_point(tmp_path / "mnt")
        summary = (tmp_path / "mnt.log").read_text()
        assert '"read_bytes":8000000' in summary.replace(" ", ""), summary
    finally:
        journal.undo_all()
    assert not (tmp_path / "mnt").exists() and not (tmp_path / "mnt.log").exists()


def test_a_daemon_that_cannot_mount_says_why(tmp_path):
    journal = UndoJournal(tmp_path / "journal.json")
    with pytest.raises(BackendError, match=r"exited \(1\): .*backing file .*missing\.img"):
        slow_device.serve(
            find_engine(),
            tmp_path / "missing.img",
            tmp_path / "mnt",
            slow_device.DeviceCaps(iops=10),
            journal,
        )
    journal.undo_all()
    assert not (tmp_path / "mnt").exists()


# A run stand-in: provision a slow loop device, say where it lives, then wait to be killed.
PREPARE_AND_WAIT = textwrap.dedent(f"""
    import sys
    from contio.backends import registry
    backend = registry.create("local", {SLOW!r})
    backend.provision()
    (backend.new_directory("data") / "f").write_bytes(b"x" * 4096)
    print(backend.workdir, flush=True)
    sys.stdin.read()
""")


@pytest.mark.parametrize("killed", ["run", "run and daemon"])
def test_cleanup_removes_a_killed_runs_slow_device(killed, state_dir, no_leaks):
    """What `contio cleanup` does for backends (tests/backends/test_leftovers.py runs the
    command itself; here without its Docker sweep, which takes a minute on a busy host)."""
    run = subprocess.Popen(
        [sys.executable, "-c", PREPARE_AND_WAIT],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        workdir = Path(run.stdout.readline().strip())
        assert workdir.name, "the backend did not prepare"
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    daemons = daemons_of(workdir)
    assert len(daemons) == 1, "the daemon should outlive its run (its own session)"
    if killed == "run and daemon":
        os.kill(daemons[0], signal.SIGKILL)
        deadline = time.monotonic() + 10
        while daemons_of(workdir) and time.monotonic() < deadline:
            time.sleep(0.05)
    assert loop_device.attached_to(workdir), "nothing left to clean up"

    found = [left for left in leftovers.find() if left.path == workdir]
    assert len(found) == 1, leftovers.find()
    assert any(r.startswith("slowdev(") for r in found[0].resources), found[0].resources
    leftovers.remove(found[0])
    assert loop_device.attached_to(workdir) == []
    assert not any(e.mount_point.startswith(str(workdir)) for e in mountinfo.mounts())
    assert daemons_of(workdir) == []
    assert not workdir.exists()


@pytest.mark.parametrize(
    ("options", "option", "hint"),
    [
        ({"mode": "directory", "path": "/tmp", "device_bandwidth": "50MB/s"}, "device_bandwidth",
         "needs mode 'device' with device 'loop', not mode 'directory'"),
        ({"mode": "device", "device": "/dev/sdz", "device_read_bps": 10**7}, "device_read_bps",
         "not device '/dev/sdz'"),
        ({"mode": "docker-volume", "device_iops": 100}, "device_iops", "device 'loop'"),
        ({**LOOP, "device_bandwidth": "fast"}, "device_bandwidth", '"10MB/s", "512KiB/s"'),
        ({**LOOP, "device_write_bps": 0}, "device_write_bps", "not 0"),
    ],
)  # fmt: skip
def test_bad_slow_device_options_name_the_option(options, option, hint):
    with pytest.raises(BackendOptionError) as err:
        registry.create("local", options)
    assert isinstance(err.value, UsageError)
    assert err.value.option == option
    assert hint in str(err.value)


def test_slow_device_caps_accept_throttle_units():
    backend = registry.create(
        "local", {**LOOP, "device_read_bps": "20MiB/s", "device_write_bps": 10**7,
                  "device_iops": "2k"},
    )  # fmt: skip
    caps = backend.options.device_caps
    assert caps == slow_device.DeviceCaps(read_bps=20 << 20, write_bps=10**7, iops=2000)
    assert caps.argv() == ["--read-bps", str(20 << 20), "--write-bps", "10000000",
                           "--iops", "2000"]  # fmt: skip
    assert registry.create("local", LOOP).options.device_caps.empty
