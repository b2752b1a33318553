"""Interrupts held over a step that must not be cut in half, then delivered."""

from __future__ import annotations

import os
import signal

import pytest

from contio.errors import Interrupted
from contio.signals import interrupts_deferred, interrupts_raise


def test_a_signal_inside_a_deferred_block_is_raised_after_the_block():
    steps = []
    with pytest.raises(Interrupted) as raised, interrupts_raise():
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            steps.append("after the signal")  # a raise inside the block would skip this
        steps.append("after the block")  # the held signal is raised before this
    assert raised.value.signum == signal.SIGTERM
    assert steps == ["after the signal"]


def test_without_a_signal_the_block_changes_nothing():
    with interrupts_raise():
        previous = signal.getsignal(signal.SIGINT)
        with interrupts_deferred():
            pass
        assert signal.getsignal(signal.SIGINT) is previous
