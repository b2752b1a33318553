"""The middleware's services as processes: named by PID and start time, detached, stopped.

A PID alone may name a later process once the first exited; with its start time (clock
ticks since boot, from /proc) it names exactly one. `contio qos up` keeps both for every
service it starts, and a detached agent (`contio qos agent --daemon`, as started over SSH
on a real storage host) writes both to its PID file, so a stop never signals a stranger.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contio.errors import MiddlewareError
from contio.host.process import start_ticks
from contio.host.waiting import poll_until

STOP_TIMEOUT = 15.0
"""Seconds a service has to clean up after SIGTERM before it gets SIGKILL."""


@dataclass
class Started:
    """A service process: its PID and start time (clock ticks since boot)."""

    pid: int
    start_time: int

    def alive(self) -> bool:
        return start_ticks(self.pid) == self.start_time


def stop_process(started: Started, timeout: float = STOP_TIMEOUT) -> bool:
    """SIGTERM the service's process group, wait for it to clean up, SIGKILL it after
    `timeout`. True when it exited on SIGTERM (or was not running)."""
    if not started.pid or not started.alive():
        return True
    with contextlib.suppress(ProcessLookupError):
        os.killpg(started.pid, signal.SIGTERM)
    if poll_until(lambda: not started.alive(), timeout):
        return True
    with contextlib.suppress(ProcessLookupError):
        os.killpg(started.pid, signal.SIGKILL)
    return False


class PidFile:
    """`PID START_TIME` of a detached service, in a file of its own."""

    def __init__(self, path: Path):
        self.path = path

    def read(self) -> Started | None:
        """The service the file names, or None (no file, or not a PID file)."""
        try:
            pid, start_time = self.path.read_text().split()
            return Started(int(pid), int(start_time))
        except (OSError, ValueError):
            return None

    def running(self) -> Started | None:
        """The service the file names while it runs; None once it has exited."""
        started = self.read()
        return started if started is not None and started.alive() else None

    def write_own(self) -> Started:
        """Name this process in the file (atomically: a reader never sees half of it)."""
        me = Started(os.getpid(), start_ticks(os.getpid()) or 0)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(f"{me.pid} {me.start_time}\n")
        os.replace(tmp, self.path)
        return me

    def remove_own(self) -> None:
        """Remove the file if it still names this process."""
        started = self.read()
        if started is not None and started.pid == os.getpid():
            self.path.unlink(missing_ok=True)


def detach(pid_file: PidFile, log: Path) -> Callable[[str | None], None]:
    """Become a daemon: fork, and in the child start a session of its own with stdin from
    /dev/null and stdout and stderr to `log`, and name itself in `pid_file`.

    The caller's process waits for the child's first word and exits with it: call the
    returned function with None once started (the caller then prints the child's
    `Started` as JSON and exits 0), or with an error message (printed; exit 1). An SSH
    session that started the service thus ends when the service is up, knowing whether
    it is, and holds none of its file descriptors."""
    running = pid_file.running()
    if running is not None:
        raise MiddlewareError(f"already running as PID {running.pid} ({pid_file.path})")
    read_end, write_end = os.pipe()
    if os.fork():
        os.close(write_end)
        with os.fdopen(read_end) as pipe:
            word = pipe.read()
        if word.startswith("{"):
            print(word, flush=True)
            os._exit(0)
        sys.stderr.write(f"error: {word or 'the service exited before it started'}\n")
        os._exit(1)
    os.close(read_end)
    os.setsid()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(os.devnull, "rb") as null, open(log, "ab") as out:
        os.dup2(null.fileno(), 0)
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
    me = pid_file.write_own()

    def tell(error: str | None) -> None:
        if error is not None:
            pid_file.remove_own()  # first: the caller may look as soon as it has the word
        with os.fdopen(write_end, "w") as pipe:
            pipe.write(error if error is not None else json.dumps(me.__dict__))

    return tell


def spawn(argv: list[str], log: Path) -> Started:
    """`argv` in a session of its own (it outlives the caller), its output in `log`."""
    # The same contio the caller runs (a source tree or an installed package).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    with open(log, "ab") as out:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                 start_new_session=True, env=env)  # fmt: skip
    return Started(child.pid, start_ticks(child.pid) or 0)


def log_tail(log: Path, lines: int = 3) -> str:
    """The last `lines` of a service's log on one line, for an error message."""
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return " | ".join(text[-lines:]) or "log empty"
