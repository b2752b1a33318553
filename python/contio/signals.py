"""Turning SIGINT and SIGTERM into an exception, so `finally` blocks clean up.

Python's default SIGTERM action kills the process without unwinding: containers
would stay behind. Inside `interrupts_raise()` both signals raise
`contio.errors.Interrupted` in the main thread instead; the cleanup code then runs
as for any other error, and completed results already on disk stay there.
`interrupts_deferred()` holds them for a few statements that must not be cut in half.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from contio.errors import Interrupted

HANDLED = (signal.SIGINT, signal.SIGTERM)


def _raise_interrupted(signum: int, _frame: FrameType | None) -> None:
    # Ignore further signals while the first one unwinds: a second Ctrl-C must not
    # abort the cleanup that the first one started.
    for sig in HANDLED:
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


@contextmanager
def interrupts_raise() -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM raise `Interrupted`; previous handlers come back
    after. Only the main thread can install handlers; elsewhere this is a no-op."""
    with _handled_by(_raise_interrupted):
        yield


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM are held; the first one held is delivered to the
    handlers in force outside the block (so inside `interrupts_raise()` it raises
    `Interrupted`) as soon as the block ends.

    For a step whose result would be lost if an exception cut it short: an exception
    raised inside `subprocess.Popen` after the fork leaves a running child that nobody
    holds a handle to, so it could be neither stopped nor reaped.
    """
    held: list[int] = []

    def hold(signum: int, _frame: FrameType | None) -> None:
        held.append(signum)

    try:
        with _handled_by(hold):
            yield
    finally:
        if held:
            signal.raise_signal(held[0])


@contextmanager
def _handled_by(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """`handler` for every HANDLED signal within the block, the previous ones after it.

    Only the main thread can install handlers; elsewhere this is a no-op.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in HANDLED}
    for sig in HANDLED:
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
