"""IoLimits validation and the priority rule of paper 004
(docs/papers.md), as pure functions."""

import pytest

from contio.errors import QosConfigError
from contio.qos import IoLimits, parse_rate, priority_limits, priority_throttles


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (10485760, 10485760),
        ("10MB/s", 10_000_000),
        ("10 MiB/s", 10 * 1024 * 1024),
        ("512KiB", 512 * 1024),
        ("2k", 2000),
        ("1.5G", 1_500_000_000),
        ("300 iops", 300),
        ("300io/s", 300),
    ],
)
def test_rates_with_units(text, value):
    assert parse_rate("read_bps", text) == value


@pytest.mark.parametrize("bad", ["fast", "-5MB", "10 parsecs", 0, True, "0.5"])
def test_bad_rates_name_the_field_and_the_allowed_forms(bad):
    with pytest.raises(QosConfigError, match=r"^blkio\.write_bps: must be"):
        parse_rate("blkio.write_bps", bad)


def test_parse_a_spec_block():
    limits = IoLimits.parse({"write_bps": "10MiB/s", "read_iops": 500, "weight": 250}, "blkio")
    assert limits == IoLimits(write_bps=10 << 20, read_iops=500, weight=250)
    assert limits.throttles == {"write_bps": 10 << 20, "read_iops": 500}
    assert not limits.empty
    assert IoLimits().empty


def test_unknown_controls_and_bad_weights_are_refused_with_the_allowed_values():
    with pytest.raises(QosConfigError) as info:
        IoLimits.parse({"write_mbps": 10}, "containers.db.blkio")
    assert str(info.value) == (
        "containers.db.blkio.write_mbps: unknown control; allowed: "
        "read_bps, write_bps, read_iops, write_iops, weight"
    )
    with pytest.raises(
        QosConfigError, match=r"^blkio\.weight: must be 1–1000 \(BFQ's range\), not 0"
    ):
        IoLimits.parse({"weight": 0}, "blkio")
    with pytest.raises(QosConfigError, match=r"^weight: must be an integer 1–1000"):
        IoLimits(weight="heavy")  # type: ignore[arg-type]
    with pytest.raises(QosConfigError, match=r"^read_iops: must be at least 1"):
        IoLimits(read_iops=0)


def test_priority_rule_of_004():
    # Paper 004: 200 MB/s per storage node, priorities 4, 8 and 8 → 40, 80 and 80 MB/s.
    assert priority_throttles(200, {"a": 4, "b": 8, "c": 8}) == {"a": 40.0, "b": 80.0, "c": 80.0}
    # A single tenant gets the whole bandwidth.
    assert priority_throttles(200, {"paraview": 100}) == {"paraview": 200.0}
    # The throttles always add up to the bandwidth.
    shares = priority_throttles(1000, {"x": 1, "y": 100, "z": 37})
    assert sum(shares.values()) == pytest.approx(1000)
    assert shares["y"] == pytest.approx(1000 * 100 / 138)


@pytest.mark.parametrize("bad", [0, 101, 2.5, True])
def test_priorities_outside_1_to_100_are_refused(bad):
    with pytest.raises(QosConfigError, match=r"^priorities\.daemon: must be an integer 1–100"):
        priority_throttles(200, {"paraview": 100, "daemon": bad})


def test_bandwidth_and_tenants_are_required():
    with pytest.raises(QosConfigError, match=r"^bandwidth: must be a positive number"):
        priority_throttles(0, {"a": 1})
    with pytest.raises(QosConfigError, match=r"^priorities: needs at least one tenant"):
        priority_throttles(100, {})


def test_priority_limits_are_io_limits_per_tenant():
    limits = priority_limits(200_000_000, {"a": 4, "b": 8, "c": 8})
    assert limits["a"] == IoLimits(read_bps=40_000_000, write_bps=40_000_000)
    assert limits["b"] == IoLimits(read_bps=80_000_000, write_bps=80_000_000)
    assert priority_limits(100, {"x": 1}, directions=("read",))["x"] == IoLimits(read_bps=100)
    with pytest.raises(QosConfigError, match=r"^directions: must be 'read' and/or 'write'"):
        priority_limits(100, {"x": 1}, directions=("sideways",))
