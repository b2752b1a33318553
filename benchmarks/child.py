"""Running one measured child process: its output, wall time, CPU time and peak RSS.

Peak RSS comes from GNU time (`/usr/bin/time -f %M`), which is the child's direct
parent. Not from this process's `os.wait4`/`getrusage(RUSAGE_CHILDREN)`: Linux keeps
a process's RSS high-water mark across exec, and a child spawned from Python starts
as a copy of (or shares) the interpreter's memory, so those report at least the
interpreter's RSS (about 20 MB here) whatever the engine uses. GNU time is a small C
program, so its floor is about 1 MB. Without it, `os.wait4`'s figure is used and
`rss_source` says so. CPU time (user + system) always comes from `os.wait4`.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
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
    cpu_seconds: float
    """User + system CPU time of the child and its threads (and its reaped children)."""
    load_before: float
    """One-minute load average just before the start: how busy the shared machine was."""
    rss_source: str
    """How max_rss_kib was measured: "gnu-time" or "wait4"."""

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
    gnu_time = shutil.which("time", path="/usr/bin")
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile(mode="r") as rss_file,
    ):
        wrapped = list(argv)
        if gnu_time:
            wrapped = [gnu_time, "-f", "%M", "-o", rss_file.name, "--", *argv]
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(
                wrapped, cwd=cwd, stdout=out, stderr=err, start_new_session=True
            )
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
        stderr = err.read().decode(errors="replace")
        rss = _gnu_time_rss(rss_file.read()) if gnu_time else None
        if gnu_time and rss is None:
            raise SetupError(f"cannot start {argv[0]}: {stderr.strip()[-300:]}")
        return ChildResult(
            argv=list(argv),
            returncode=proc.returncode,
            stdout=out.read().decode(errors="replace"),
            stderr=stderr,
            wall_seconds=wall,
            max_rss_kib=rusage.ru_maxrss if rss is None else rss,
            cpu_seconds=rusage.ru_utime + rusage.ru_stime,
            load_before=load_before,
            rss_source="wait4" if rss is None else "gnu-time",
        )


def _gnu_time_rss(text: str) -> int | None:
    """The %M figure (KiB) GNU time wrote last; None when the program never ran."""
    lines = text.strip().splitlines()
    if not lines or not lines[-1].strip().isdigit():
        return None
    if any("exited with non-zero status 127" in line for line in lines):
        return None  # GNU time's own code for "command not found"
    return int(lines[-1])


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
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


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
