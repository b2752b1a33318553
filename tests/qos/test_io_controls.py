"""The stand-in block I/O controller for hosts without a blkio/io cgroup hierarchy."""

from __future__ import annotations

import pytest

from contio.qos.control_spec import IoControlSet, IoGroupControls
from contio.qos.io_controls import NoIoController


def test_the_stand_in_runs_uncontrolled_cells_and_names_why_it_cannot_control():
    controller = NoIoController("no cgroup hierarchy with block I/O control is mounted")
    assert controller.unavailable_reason(IoControlSet()) is None
    reason = controller.unavailable_reason(IoControlSet(groups=[IoGroupControls(weight=50)]))
    assert reason and "no cgroup hierarchy" in reason
    # A group without limits is still a cgroup of its own (paper 004's VNode overhead).
    assert controller.unavailable_reason(IoControlSet(groups=[IoGroupControls()]))
    with pytest.raises(RuntimeError, match="no cgroup hierarchy"):
        controller.prepare(IoGroupControls(), None)
    with pytest.raises(RuntimeError, match="no cgroup hierarchy"):
        controller.popen(1, ["true"])
