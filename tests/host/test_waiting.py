"""One polling loop with a deadline: what it returns, when it gives up, what it says."""

from __future__ import annotations

import time

import pytest

from contio.errors import WaitTimeout
from contio.host.waiting import poll_until, wait_until


def test_poll_until_returns_as_soon_as_the_condition_holds():
    looks = iter([False, False, True])
    assert poll_until(lambda: next(looks), timeout=5, interval=0.001) is True


def test_poll_until_gives_up_after_the_timeout_and_looks_once_more():
    seen: list[float] = []

    def never() -> bool:
        seen.append(time.monotonic())
        return False

    assert poll_until(never, timeout=0.05, interval=0.01) is False
    assert seen[-1] - seen[0] >= 0.05  # the last look is at the deadline, not before it
    assert len(seen) >= 3


def test_wait_until_returns_the_value_or_names_what_did_not_happen():
    values = iter([None, "", "ready"])
    assert wait_until(lambda: next(values), timeout=5, what="x", interval=0.001) == "ready"
    with pytest.raises(WaitTimeout, match=r"gave up waiting for the mount at /mnt/a after 0\.02 s"):
        wait_until(lambda: None, timeout=0.02, what="the mount at /mnt/a")
