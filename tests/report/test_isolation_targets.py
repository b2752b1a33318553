"""The isolation chart's marks: a throttle given in percent of the device's bandwidth
is drawn at the limit the run resolved and applied (its rows' `io_control`)."""

from __future__ import annotations

import json

import pandas as pd

from contio.report.detail_sections import _applied_limits, _targets

MIB = 1024 * 1024


def test_a_percent_throttle_is_marked_at_the_limit_the_run_applied():
    applied = json.dumps(
        {"mechanism": "blkio", "limits": {"read_bps": 50 * MIB, "write_bps": None}}
    )
    rows = pd.DataFrame(
        {"container": [1, 1, 2], "io_control": [applied, applied, json.dumps({"notes": ["x"]})]}
    )
    limits = _applied_limits(rows)
    assert limits == {1: 50 * MIB}
    groups = [{"read_bps": "25%"}, {}]
    bandwidth = pd.Series({1: 48.0, 2: 150.0})
    marks = _targets(groups, bandwidth, "MiB/s", limits)
    assert marks == {1: (50.0, "≤ 50.0 MiB/s (25%)")}
    # Without the applied limits a percent cannot be drawn; a number in bytes/s can.
    assert _targets(groups, bandwidth, "MiB/s", {}) == {}
    assert _targets([{"write_bps": 2 * MIB}], bandwidth, "MiB/s", {})[1] == (2.0, "≤ 2.0 MiB/s")
