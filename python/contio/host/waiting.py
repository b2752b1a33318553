"""Waiting for something to happen: one polling loop with a deadline, instead of one per
caller. `poll_until` says whether it happened in time; `wait_until` raises `WaitTimeout`
naming what did not happen and after how long, so the message a user reads is the
caller's `what`, not a bare "timed out".

Polling, not events: what contio waits for (a process to exit, a mount to appear, a
daemon's file, a container to stop) has no notification it could block on portably.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from contio.errors import WaitTimeout

T = TypeVar("T")

DEFAULT_INTERVAL = 0.05
"""Seconds between two looks: short next to the waits (≥ 1 s), cheap for the checks."""


def poll_until(
    condition: Callable[[], object], timeout: float, interval: float = DEFAULT_INTERVAL
) -> bool:
    """Look at `condition` until it is true or `timeout` seconds passed (at least once,
    and once more at the deadline); whether it became true."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return bool(condition())
        time.sleep(min(interval, left))


def wait_until(
    condition: Callable[[], T | None],
    timeout: float,
    what: str,
    interval: float = DEFAULT_INTERVAL,
) -> T:
    """The first truthy value of `condition` within `timeout` seconds; `WaitTimeout`
    ("gave up waiting for `what` after N s") otherwise."""
    found: list[T] = []

    def look() -> bool:
        value = condition()
        if value:
            found.append(value)
        return bool(value)

    if poll_until(look, timeout, interval):
        return found[0]
    raise WaitTimeout(what, timeout)
