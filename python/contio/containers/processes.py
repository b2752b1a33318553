"""The local-process runtime: the engine runs as a child process of contio.

The child gets its own session, so a Ctrl-C at the terminal reaches contio only;
contio forwards SIGINT/SIGTERM to it, gives it `stop_grace_seconds` to write its
result document (status "interrupted"), then kills it. Whatever happens, no child
outlives `run`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from contio.errors import Interrupted


class ProcessRuntime:
    """Runs commands as child processes on this host."""

    name = "process"

    def __init__(self, stop_grace_seconds: float = 10.0):
        self.stop_grace_seconds = stop_grace_seconds

    def run(self, argv: Sequence[str], *, stdout: Path, stderr: Path) -> int:
        """Run `argv` to completion with its output in new files; returns its exit code.

        A negative code means the child died of that signal. On an interrupt
        (`Interrupted` or `KeyboardInterrupt`) the signal is forwarded to the child,
        the child is reaped, and the interrupt propagates.
        """
        child: subprocess.Popen[bytes] | None = None
        try:
            with stdout.open("xb") as out, stderr.open("xb") as err:
                child = subprocess.Popen(
                    list(argv),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                )
            return child.wait()
        except Interrupted as exc:
            if child is not None:
                self._stop(child, exc.signum)
            raise
        except KeyboardInterrupt:
            if child is not None:
                self._stop(child, signal.SIGINT)
            raise
        except BaseException:
            if child is not None:
                _kill(child)
            raise

    def _stop(self, child: subprocess.Popen[bytes], signum: int) -> None:
        """Forward `signum`, wait up to the grace period, then kill."""
        try:
            child.send_signal(signum)
            child.wait(timeout=self.stop_grace_seconds)
        except subprocess.TimeoutExpired:
            _kill(child)
        except BaseException:
            # A second interrupt while waiting: stop waiting, but still leave no child.
            _kill(child)
            raise


def _kill(child: subprocess.Popen[bytes]) -> None:
    """Kill the child's whole session (it leads its own process group) and reap it."""
    # Until reaped, the pid (and the group it leads) cannot have been reused.
    if child.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
    child.wait()
