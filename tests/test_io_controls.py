"""The stand-in block I/O controller: cells without groups run, cells with groups get a reason."""

from __future__ import annotations

import pytest

from contio.io_controls import NoIoController, process_controller
from contio.spec_parts import IoControlSet, IoGroupControls


def test_the_stand_in_runs_uncontrolled_cells_and_names_why_it_cannot_control():
    controller = process_controller()
    if not isinstance(controller, NoIoController):
        pytest.skip("contio.qos provides the controller in this build")
    assert controller.unavailable_reason(IoControlSet()) is None
    reason = controller.unavailable_reason(IoControlSet(groups=[IoGroupControls(weight=50)]))
    assert reason and "contio.qos" in reason
    # A group without limits is still a cgroup of its own (paper 004's VNode overhead).
    assert controller.unavailable_reason(IoControlSet(groups=[IoGroupControls()]))
    with pytest.raises(RuntimeError):
        controller.attach(1, IoGroupControls(), None)
