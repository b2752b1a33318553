"""A slow device for loop devices: the loop device's backing file served through a FUSE
file system that paces every read and write to device-wide caps.

A loop device over a file on this host's disk moves ~1.8 GB/s; paper 004's throttles
(10–40 MB/s) and its eight competing processes cannot load such a device, so its
interference cannot show. This kernel has no dm-delay, null_blk, nbd, ublk, brd or
scsi_debug, and cgroup v1 throttles on a parent group do not cap a device for
everyone. It has FUSE: `contio-engine slowdev` mounts a directory holding the backing
file, reads and writes it (O_DIRECT where it can) and answers each request when the
device's caps allow (`--bandwidth`, `--read-bps`, `--write-bps`, `--iops`); every
open is direct I/O, so no page cache hides the caps. The loop device is attached to the
file in that mount, and everyone using the loop device shares one capped device, as
on a slow disk.

`serve` starts the daemon in a session of its own (a Ctrl-C at the terminal reaches
contio, which tears down in order: file system, loop device, then the daemon) and
records it in the undo journal; `undo_slowdev` unmounts it, waits for the daemon to
exit (stopping it if it does not) and removes the mount point, also from `contio
cleanup` after a killed run.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from contio.errors import BackendError
from contio.host import command, mountinfo
from contio.host.process import start_ticks
from contio.host.undo_journal import Entry, UndoJournal
from contio.host.waiting import poll_until

FS_SOURCE = "contio-slowdev"
"""The FUSE mount's source in /proc/self/mountinfo (its type is `fuse`)."""
READY_TIMEOUT = 20.0
"""Seconds the daemon may take to mount and say it is ready."""
EXIT_TIMEOUT = 10.0
"""Seconds the daemon may take to exit once its mount is gone, before it is stopped."""

# Daemons this process started, by pid: waited for on undo, so none stays a zombie.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class DeviceCaps:
    """Device-wide caps of a slow device, per second; None leaves a cap unset."""

    bandwidth: int | None = None
    """Bytes/s of reads and writes together."""
    read_bps: int | None = None
    write_bps: int | None = None
    iops: int | None = None
    """Requests/s of reads and writes together."""

    @property
    def empty(self) -> bool:
        """No cap at all: the device is not slowed."""
        return all(v is None for v in asdict(self).values())

    def as_dict(self) -> dict[str, int]:
        """The caps that are set (for descriptions and results)."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    def argv(self) -> list[str]:
        """The daemon's cap arguments."""
        flags = {"bandwidth": "--bandwidth", "read_bps": "--read-bps",
                 "write_bps": "--write-bps", "iops": "--iops"}  # fmt: skip
        return [arg for k, v in self.as_dict().items() for arg in (flags[k], str(v))]


@dataclass(frozen=True)
class SlowDevice:
    """A running slow-device daemon: the paced file to attach the loop device to."""

    file: Path
    """The backing file as the FUSE mount shows it."""
    mountpoint: Path
    backing_file: Path
    caps: DeviceCaps
    direct_io: bool
    """Whether the daemon reads and writes the backing file with O_DIRECT."""
    pid: int

    def describe(self) -> dict[str, Any]:
        """What results and reports say about the emulated device."""
        return {
            "emulated": True,
            "mechanism": "loop device over a FUSE file paced by `contio-engine slowdev`",
            "caps": self.caps.as_dict(),
            "backing_file": str(self.backing_file),
            "paced_file": str(self.file),
            "backing_direct_io": self.direct_io,
        }


def serve(
    engine: Path, backing: Path, mountpoint: Path, caps: DeviceCaps, journal: UndoJournal
) -> SlowDevice:
    """Start `engine`'s slow-device daemon (`contio-engine slowdev`) serving `backing` under
    `mountpoint` paced to `caps`; returns once it is mounted. The daemon's log (and its
    summary at exit) goes to `<mountpoint>.log`."""
    if caps.empty:
        raise BackendError("a slow device needs at least one cap")
    mountpoint.mkdir(parents=True, exist_ok=False)
    log_path = mountpoint.with_suffix(".log")
    journal.record("file", path=str(log_path))
    argv = [str(engine), "slowdev", "--file", str(backing), "--mountpoint", str(mountpoint),
            *caps.argv()]  # fmt: skip
    with open(log_path, "wb") as log:
        daemon = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log,
            start_new_session=True, cwd="/",
        )  # fmt: skip
    _CHILDREN[daemon.pid] = daemon
    journal.record(
        "slowdev",
        mountpoint=str(mountpoint),
        pid=daemon.pid,
        pid_start=str(start_ticks(daemon.pid) or ""),
        backing_file=str(backing),
    )
    ready = _ready_line(daemon, log_path)
    return SlowDevice(
        file=Path(ready["file"]),
        mountpoint=mountpoint,
        backing_file=backing,
        caps=caps,
        direct_io=bool(ready.get("direct_io")),
        pid=daemon.pid,
    )


def _ready_line(daemon: subprocess.Popen[bytes], log_path: Path) -> dict[str, Any]:
    """The daemon's ready line, or a `BackendError` with its log when it never comes."""
    assert daemon.stdout is not None
    deadline = time.monotonic() + READY_TIMEOUT
    line = b""
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        readable, _, _ = select.select([daemon.stdout], [], [], 0.2)
        if readable:
            chunk = os.read(daemon.stdout.fileno(), 4096)
            if not chunk:
                break  # the daemon exited
            line += chunk
    daemon.stdout.close()  # nothing else comes on stdout
    try:
        ready = json.loads(line)
    except ValueError:
        ready = {}
    if not isinstance(ready, dict) or not ready.get("ready"):
        with contextlib.suppress(subprocess.TimeoutExpired):
            daemon.wait(timeout=1)
        log = log_path.read_text(errors="replace").strip() if log_path.exists() else ""
        state = "did not start" if daemon.poll() is None else f"exited ({daemon.returncode})"
        raise BackendError(f"the slow-device daemon {state}: {log or 'no message'}")
    return ready


def _is_our_daemon(entry: Entry) -> bool:
    """Whether the entry's pid still runs as the daemon it recorded (pids are reused)."""
    start = start_ticks(entry["pid"])  # None once it exited, as a zombie too
    return start is not None and (not entry["pid_start"] or str(start) == entry["pid_start"])


def _wait_for_exit(entry: Entry, timeout: float) -> bool:
    """Wait up to `timeout` s for the daemon to exit (reaping it when it is our child)."""
    child = _CHILDREN.get(entry["pid"])

    def exited() -> bool:
        if child is not None:
            return child.poll() is not None
        return not _is_our_daemon(entry)

    if not poll_until(exited, timeout):
        return False
    _CHILDREN.pop(entry["pid"], None)
    return True


def _signal(entry: Entry, signum: int) -> None:
    if _is_our_daemon(entry):
        with contextlib.suppress(ProcessLookupError):
            os.kill(entry["pid"], signum)


def undo_slowdev(entry: Entry) -> None:
    """Journal undo: unmount the slow device's FUSE mount and end its daemon.

    Runs after the loop device over it is detached (the journal undoes newest first);
    a mount still in use is left, with its daemon, for the next attempt."""
    mountpoint = entry["mountpoint"]
    for _ in range(10):
        if not mountinfo.is_mount_point(mountpoint):
            break
        if command.run(["umount", mountpoint], check=False).returncode == 0:
            continue
        time.sleep(0.3)
    if mountinfo.is_mount_point(mountpoint):
        raise BackendError(f"the slow device at {mountpoint} is still in use; not stopping it")
    # Unmounted: the daemon's session has ended and it exits by itself.
    if not _wait_for_exit(entry, EXIT_TIMEOUT):
        _signal(entry, signal.SIGTERM)
        if not _wait_for_exit(entry, EXIT_TIMEOUT):
            _signal(entry, signal.SIGKILL)
            if not _wait_for_exit(entry, EXIT_TIMEOUT):
                raise BackendError(f"the slow-device daemon (pid {entry['pid']}) does not exit")
    with contextlib.suppress(FileNotFoundError):
        os.rmdir(mountpoint)
