"""The coordinator's control law (`contio.qos.policy`) as pure functions: paper 004's
Algorithm 1, and the work-conserving policy in a closed loop against simulated tenants."""

from __future__ import annotations

import pytest

from contio.errors import QosConfigError
from contio.qos.policy import (
    CAPACITY_FLOOR,
    CAPACITY_RECOVERY,
    PROBE_FRACTION,
    UNKNOWN_IO_BYTES,
    TenantShare,
    effective_capacity,
    idle_allowances,
    in_bytes,
    static_shares,
    water_fill,
    work_conserving_shares,
)

MB = 1_000_000


def _tenants(*specs: tuple[str, int] | TenantShare) -> dict[str, TenantShare]:
    made = [s if isinstance(s, TenantShare) else TenantShare(*s) for s in specs]
    return {t.name: t for t in made}


def test_static_is_algorithm_1_over_the_active_tenants():
    tenants = _tenants(("a", 4), ("b", 8), ("c", 8))
    shares = static_shares(200 * MB, tenants, {"a", "b", "c"})
    assert shares == pytest.approx({"a": 40 * MB, "b": 80 * MB, "c": 80 * MB})  # 004's example
    # c idle: a and b share the node; c is offered what it would get on joining.
    shares = static_shares(200 * MB, tenants, {"a", "b"})
    assert shares["a"] == pytest.approx(200 * MB * 4 / 12)
    assert shares["b"] == pytest.approx(200 * MB * 8 / 12)
    assert shares["c"] == pytest.approx(80 * MB)


def test_static_with_nobody_active_offers_each_tenant_the_whole_node():
    shares = static_shares(100 * MB, _tenants(("a", 1), ("b", 100)), set())
    assert shares == pytest.approx({"a": 100 * MB, "b": 100 * MB})


def test_static_respects_reservations_and_limits():
    tenants = _tenants(TenantShare("a", 1, reservation=50 * MB), ("b", 99),
                       TenantShare("c", 99, limit=10 * MB))  # fmt: skip
    shares = static_shares(200 * MB, tenants, {"a", "b", "c"})
    assert shares["a"] == pytest.approx(50 * MB)
    assert shares["c"] == pytest.approx(10 * MB)
    assert shares["b"] == pytest.approx(140 * MB)


def test_water_fill_is_weighted_max_min():
    shares = water_fill(90, {"a": 1, "b": 2, "c": 3}, {"a": 0, "b": 0, "c": 0},
                        {"a": 5, "b": 1e9, "c": 1e9})  # fmt: skip
    assert shares == pytest.approx({"a": 5, "b": 34, "c": 51})
    everything = water_fill(90, {"a": 1, "b": 1}, {"a": 0, "b": 0}, {"a": 10, "b": 20})
    assert everything == pytest.approx({"a": 10, "b": 20})  # nobody wants more: ceilings


def _loop(capacity, tenants, wants_per_interval):
    """Run the work-conserving law against tenants that use min(what they want, what
    they hold) each interval; returns the shares of every interval."""
    held = static_shares(capacity, tenants, set(tenants))
    history = []
    for wants in wants_per_interval:
        used = {n: min(wants[n], held[n]) for n in tenants}
        held = work_conserving_shares(capacity, tenants, held, used)
        assert sum(held.values()) == pytest.approx(capacity)  # no limits here: all divided
        history.append(held)
    return history


def test_an_idle_tenants_bandwidth_is_lent_and_taken_back_within_one_interval():
    tenants = _tenants(("a", 50), ("b", 50))
    both = {"a": 1e12, "b": 1e12}
    a_idle = {"a": 0.0, "b": 1e12}
    history = _loop(100 * MB, tenants, [both, both, a_idle, a_idle, a_idle, both, both])
    assert history[1] == pytest.approx({"a": 50 * MB, "b": 50 * MB})
    lent = history[4]
    assert lent["a"] == pytest.approx(PROBE_FRACTION * 50 * MB)  # keeps a probe only
    assert lent["b"] == pytest.approx(100 * MB - lent["a"])
    # a asks again (uses all of its probe): its fair share is back in the next interval.
    assert history[5] == pytest.approx({"a": 50 * MB, "b": 50 * MB})


def test_an_idle_tenant_is_throttled_at_the_share_it_would_have_if_busy():
    tenants = _tenants(("a", 4), ("b", 8), ("c", 8))
    history = _loop(100 * MB, tenants, [{"a": 1e12, "b": 1e12, "c": 0.0}] * 3)
    held = history[-1]
    used = {"a": held["a"], "b": held["b"], "c": 0.0}
    assert held["c"] == pytest.approx(PROBE_FRACTION * 40 * MB)  # accounted with a probe
    # ... but throttled at its busy share, so its first requests pass at once.
    assert idle_allowances(100 * MB, tenants, held, used) == pytest.approx({"c": 40 * MB})
    # Busy tenants, and a lender moving at least its probe, keep their shares as throttles.
    assert idle_allowances(100 * MB, tenants, held, {**used, "c": 3 * MB}) == {}
    # A tenant coming back through its allowance is busy at the first report, however
    # little of the interval it read (here a fifth of it at its busy share).
    back = work_conserving_shares(100 * MB, tenants, held, {**used, "c": 0.2 * 40 * MB})
    assert back == pytest.approx({"a": 20 * MB, "b": 40 * MB, "c": 40 * MB})


def test_an_active_tenant_below_its_share_keeps_its_fair_share_and_is_a_fixed_point():
    tenants = _tenants(("steady", 80), ("busy", 20))
    wants = {"steady": 30 * MB, "busy": 1e12}
    history = _loop(100 * MB, tenants, [wants] * 8)
    for shares in history[1:]:
        # steady moves 30 of its fair 80 and holds all 80: lent, the rest would fill the
        # disk with busy's requests, and steady's would queue behind them.
        assert shares == pytest.approx({"steady": 80 * MB, "busy": 20 * MB})


def test_only_an_idle_tenants_share_is_lent():
    tenants = _tenants(("idle", 50), ("busy", 50))
    history = _loop(100 * MB, tenants, [{"idle": 0.0, "busy": 1e12}] * 4)
    assert history[-1]["busy"] == pytest.approx(100 * MB * (1 - PROBE_FRACTION / 2))
    # Moving a probe's worth (here just above it) makes it active: its fair share is back.
    trickle = PROBE_FRACTION * 50 * MB * 1.01
    history = _loop(100 * MB, tenants, [{"idle": 0.0, "busy": 1e12}] * 3
                    + [{"idle": trickle, "busy": 1e12}] * 2)  # fmt: skip
    assert history[-1] == pytest.approx({"idle": 50 * MB, "busy": 50 * MB})
    # Growing past its fair share, it is busy and divides the node by priority.
    history = _loop(100 * MB, tenants, [{"idle": 1e12, "busy": 1e12}] * 2)
    assert history[-1] == pytest.approx({"idle": 50 * MB, "busy": 50 * MB})


def test_priorities_divide_a_node_when_everyone_is_busy():
    tenants = _tenants(("hi", 75), ("lo", 25))
    history = _loop(200 * MB, tenants, [{"hi": 1e12, "lo": 1e12}] * 3)
    assert history[-1] == pytest.approx({"hi": 150 * MB, "lo": 50 * MB})


def test_a_reservation_is_never_lent_and_a_limit_never_exceeded():
    tenants = _tenants(TenantShare("reserved", 1, reservation=40 * MB),
                       TenantShare("capped", 99, limit=30 * MB), ("other", 50))  # fmt: skip
    idle_reserved = {"reserved": 0.0, "capped": 1e12, "other": 1e12}
    history = _loop(100 * MB, tenants, [idle_reserved] * 4)
    for shares in history:
        assert shares["reserved"] >= 40 * MB - 1
        assert shares["capped"] <= 30 * MB + 1
    assert history[-1]["other"] == pytest.approx(30 * MB)


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: TenantShare("t", 0), r"tenants\.t\.priority: must be an integer 1–100"),
        (lambda: TenantShare("t", 101), r"tenants\.t\.priority"),
        (lambda: TenantShare("t", 5, reservation=10, limit=5), r"tenants\.t\.limit: \(5\)"),
        (lambda: static_shares(10, _tenants(TenantShare("t", 5, reservation=20)), set()),
         r"tenants\.t\.reservation: \(20\) is above the node's capacity"),
        (lambda: work_conserving_shares(10, _tenants(TenantShare("a", 5, reservation=6),
                                                     TenantShare("b", 5, reservation=6)), {}, {}),
         r"tenants\.\*\.reservation: add up to 12"),
        (lambda: static_shares(0, _tenants(("t", 5)), set()), r"capacity: must be a positive number"),
    ],
)  # fmt: skip
def test_bad_tenants_name_the_field(make, field):
    with pytest.raises(QosConfigError, match=field):
        make()


def test_effective_capacity_follows_a_saturated_disk_and_recovers_slowly():
    calibrated = 100 * MB
    assert effective_capacity(calibrated, None, 90 * MB, None) == calibrated  # no disk data
    saturated = effective_capacity(calibrated, None, 90 * MB, 1.0)
    assert saturated == pytest.approx(95 * MB)  # halfway to what the busy disk moved
    grown = effective_capacity(calibrated, 90 * MB, 30 * MB, 0.45)  # not saturated
    assert grown == pytest.approx(90 * MB * (1 + CAPACITY_RECOVERY * 0.5))
    creeping = effective_capacity(calibrated, 90 * MB, 80 * MB, 0.9)  # nearly saturated
    assert 90 * MB < creeping < grown
    assert effective_capacity(calibrated, 99.9 * MB, 30 * MB, 0.4) == calibrated
    floor = effective_capacity(calibrated, 10 * MB, 1 * MB, 1.0)
    assert floor == pytest.approx(CAPACITY_FLOOR * calibrated)


def _disk_divides(real: float, throttles: dict[str, float]) -> dict[str, float]:
    """A disk of `real` bytes/s shared by equally greedy tenants: each gets the same level,
    up to its throttle (the throttle caps, the disk divides the rest evenly)."""
    equal = {n: 1.0 for n in throttles}
    return water_fill(min(real, sum(throttles.values())), equal, dict.fromkeys(throttles, 0.0),
                      throttles)  # fmt: skip


@pytest.mark.parametrize("track", [True, False])
def test_shares_of_the_effective_capacity_are_the_shares_asked_for(track):
    """The bench's case in a closed loop: calibrated 100 MB/s, a disk that moves 90 through
    the file system, priorities 4 : 8 : 8, everyone greedy. Dividing the calibrated
    capacity gives the low-priority tenant 22 % instead of 20 % (the disk splits the
    oversubscription evenly); dividing the tracked capacity gives 20 %."""
    tenants = _tenants(("a", 4), ("b", 8), ("c", 8))
    calibrated, real = 100 * MB, 90 * MB
    effective, fractions = None, []
    for _ in range(40):
        throttles = static_shares(effective or calibrated, tenants, {"a", "b", "c"})
        moved = _disk_divides(real, throttles)
        total = sum(moved.values())
        utilization = min(1.0, sum(throttles.values()) / real)
        if track:
            effective = effective_capacity(calibrated, effective, total, utilization)
        fractions.append(moved["a"] / total)
    settled = fractions[-10:]
    if track:
        assert all(f == pytest.approx(0.20, rel=0.03) for f in settled)
    else:
        assert all(f > 0.21 for f in settled)


def test_iops_bounds_fold_into_bytes_at_the_measured_request_size():
    tenants = {
        "db": TenantShare("db", 50, reservation=1 * MB, reservation_iops=500),
        "scan": TenantShare("scan", 50, limit=80 * MB, limit_iops=40),
        "new": TenantShare("new", 50, reservation_iops=100, limit_iops=100),
    }
    folded = in_bytes(100 * MB, tenants, {"db": 8192, "scan": 2**20})
    assert folded["db"].reservation == 500 * 8192  # the tighter of 1 MB/s and 500 × 8 KiB
    assert folded["scan"].limit == 40 * 2**20  # below its 80 MB/s
    # Not measured here yet: its reservation at the smallest request, no bytes limit
    # (the kernel's IOPS throttle holds it).
    assert folded["new"].reservation == 100 * UNKNOWN_IO_BYTES and folded["new"].limit is None
    assert all(t.reservation_iops == 0 and t.limit_iops is None for t in folded.values())


def test_iops_reservations_folded_past_the_capacity_share_what_bytes_leave():
    tenants = {
        "a": TenantShare("a", 10, reservation=20 * MB),
        "b": TenantShare("b", 10, reservation_iops=1000),
        "c": TenantShare("c", 10, reservation_iops=1000),
    }
    # 1000 × 1 MiB each would be 2 GB/s of a 100 MB/s node: a keeps its 20, b and c
    # share the 80 left in proportion to what they asked for (1 MiB : 64 KiB).
    folded = in_bytes(100 * MB, tenants, {"b": 2**20, "c": 65536})
    assert folded["a"].reservation == 20 * MB
    assert folded["b"].reservation + folded["c"].reservation == pytest.approx(80 * MB)
    assert folded["b"].reservation / folded["c"].reservation == pytest.approx(16)
    # The folded tenants are what the policy divides: reservations first.
    shares = work_conserving_shares(100 * MB, folded, {}, {"a": 0.0, "b": 0.0, "c": 0.0})
    assert shares["b"] >= folded["b"].reservation


def test_an_iops_limit_below_the_iops_reservation_is_refused():
    with pytest.raises(QosConfigError, match=r"tenants\.t\.limit: \(10 iops\) is below"):
        TenantShare("t", 5, reservation_iops=20, limit_iops=10)
