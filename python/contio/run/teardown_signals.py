"""Signals during a run's teardown: noted, not raised, so the teardown always finishes.

Once the cells have ended (or a first signal ended them), the runner releases the data,
the executors, the block I/O groups and the backends, then writes backends.json and
summary.csv. An `Interrupted` raised in the middle of that would leave a local-dir's
root in the user's folder and no summary. So from the moment the cells end until the
run returns, SIGINT and SIGTERM only note that they came (the first says what is
still being done, a second says the teardown ends by itself); when every cell had
ended before the signal, the run still returns its outcome, marked `interrupted`, and
`contio run` writes the report before it exits 128 + the signal.

`CONTIO_TEARDOWN_GATE`, for tests only: a path; the teardown creates `<gate>.reached`
and waits until `<gate>.go` exists, so a test can deliver its signals during the
teardown without guessing when that is.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from contio.host.waiting import poll_until
from contio.signals import HANDLED

TEARDOWN_GATE_ENV = "CONTIO_TEARDOWN_GATE"


class TeardownSignals:
    """SIGINT/SIGTERM noted while a teardown runs (`hold` … `release`)."""

    def __init__(self, echo: Callable[[str], None]):
        self._echo = echo
        self._previous: dict[int, Any] | None = None
        self.signum: int | None = None
        """The first signal noted, None when none came."""

    def hold(self) -> None:
        """From now on a signal is noted instead of handled (again: no change)."""
        if self._previous is not None or threading.current_thread() is not threading.main_thread():
            return
        self._previous = {sig: signal.getsignal(sig) for sig in HANDLED}
        for sig in HANDLED:
            signal.signal(sig, self._note)

    def release(self) -> None:
        """The handlers in force before `hold` come back."""
        if self._previous is None:
            return
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous = None

    def _note(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
            self._echo(
                f"contio: signal {signum} during the teardown: finishing it first (data, "
                "backends, summary), then stopping"
            )
        else:
            self._echo(
                "contio: the teardown is still running and ends by itself; stopping it now "
                "would leave storage that only `contio cleanup` removes"
            )


GATE_TIMEOUT_S = 600.0
"""The longest a teardown waits at a test's gate (a test that died never opens it)."""


def wait_at_gate() -> None:
    """For tests: wait at the gate `CONTIO_TEARDOWN_GATE` names, if it names one."""
    gate = os.environ.get(TEARDOWN_GATE_ENV)
    if not gate:
        return
    Path(f"{gate}.reached").touch()
    # A signal runs its handler and the wait goes on.
    poll_until(Path(f"{gate}.go").exists, GATE_TIMEOUT_S)
