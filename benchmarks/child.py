"""Running one measured child process: its output, wall time and peak resident set size.

Peak RSS comes from `os.wait4`, which returns the kernel's resource usage of exactly
the child that was reaped (`ru_maxrss`, KiB on Linux): no polling, so short peaks
are not missed, and other children of this process do not blur it (as deltas of
`getrusage(RUSAGE_CHILDREN)` would, since that keeps the maximum over all children).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.errors import SetupError

_POLL_SECONDS = 0.05


@dataclass
class ChildResult:
    """What a finished child left behind."""

    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    wall_seconds: float
    max_rss_kib: int
    load_before: float
    """One-minute load average just before the start: how busy the shared machine was."""

    @property
    def max_rss_mib(self) -> float:
        """Peak resident set size in MiB."""
        return self.max_rss_kib / 1024

    def tail(self, lines: int = 15) -> str:
        """The end of stderr (or stdout), for error messages."""
        text = self.stderr.strip() or self.stdout.strip()
        return "\n".join(text.splitlines()[-lines:])


def run_child(argv: list[str], *, cwd: Path | None = None, timeout: float = 3600.0) -> ChildResult:
    """Runs argv to completion (no shell) and returns its output and resource usage.

    The child is killed if it outlives `timeout` or if this process is interrupted,
    so no measurement keeps running behind the user's back.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, start_new_session=True)
        except OSError as exc:
            raise SetupError(f"cannot start {argv[0]}: {exc}") from exc
        try:
            status, rusage = _wait(proc.pid, start + timeout)
        except BaseException:
            _kill_and_reap(proc.pid)
            proc.returncode = -signal.SIGKILL
            raise
        wall = time.perf_counter() - start
        # Popen must not try to reap the pid again: tell it the child is gone.
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return ChildResult(
            argv=list(argv),
            returncode=proc.returncode,
            stdout=out.read().decode(errors="replace"),
            stderr=err.read().decode(errors="replace"),
            wall_seconds=wall,
            max_rss_kib=rusage.ru_maxrss,
            load_before=load_before,
        )


def _wait(pid: int, deadline: float) -> tuple[int, resource.struct_rusage]:
    """Waits for pid with wait4, polling so that a deadline and Ctrl-C can interrupt."""
    while True:
        done, status, rusage = os.wait4(pid, os.WNOHANG)
        if done == pid:
            return status, rusage
        if time.perf_counter() > deadline:
            raise SetupError(f"child {pid} did not finish before its time limit")
        time.sleep(_POLL_SECONDS)


def _kill_and_reap(pid: int) -> None:
    """Kills the child's whole session (it may have started helpers) and reaps it."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def run_checked(
    argv: list[str], *, cwd: Path | None = None, timeout: float = 3600.0
) -> ChildResult:
    """run_child, raising SetupError with the child's last lines when it exits non-zero."""
    result = run_child(argv, cwd=cwd, timeout=timeout)
    if result.returncode != 0:
        raise SetupError(
            f"{' '.join(argv)}\nexited with code {result.returncode}:\n{result.tail()}"
        )
    return result
