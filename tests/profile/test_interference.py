"""The interference model on made-up profiles: under the fair law a saturated device
divided fairly, a queueing term below saturation, sequential I/O penalised beside random
I/O; under the fifo law large requests starving small ones; the host's CPUs shared, and
a profile's own curve used for copies of itself."""

from __future__ import annotations

import pytest
from profiles import profile

from contio.profile.interference import (
    MODEL_ERROR,
    QUEUE_WEIGHT,
    SEQUENTIAL_PENALTY,
    ModelConstants,
    predict,
    sequential,
)

FAIR = ModelConstants(sharing="fair")
FIFO = ModelConstants(sharing="fifo")


def test_a_saturated_device_is_divided_by_max_min_fairness():
    heavy, light = profile("heavy", 90.0), profile("light", 30.0)
    got = {p.name: p for p in predict([heavy, light], ["heavy", "light"], cores=8, constants=FAIR)}
    # 1.2 of the device asked: light keeps its 0.3, heavy gets the other 0.7 of 0.9.
    assert got["light"].normalized == pytest.approx(1.0)
    assert got["heavy"].normalized == pytest.approx(0.7 / 0.9)
    assert got["heavy"].bottleneck == "device"
    assert got["heavy"].ops_per_sec == pytest.approx(1000.0 * 0.7 / 0.9)
    even = predict([profile("a", 70.0), profile("b", 70.0)], ["a", "b"], cores=8, constants=FAIR)
    assert [p.normalized for p in even] == pytest.approx([0.5 / 0.7, 0.5 / 0.7])


def test_below_saturation_members_wait_behind_each_others_requests():
    got = predict([profile("a", 30.0), profile("b", 10.0)], ["a", "b"], cores=8, constants=FAIR)
    assert got[0].normalized == pytest.approx(1 / (1 + QUEUE_WEIGHT * 0.1))
    assert got[1].normalized == pytest.approx(1 / (1 + QUEUE_WEIGHT * 0.3))
    assert got[1].normalized < got[0].normalized < 1.0


def test_sequential_io_pays_beside_random_io_and_not_beside_its_kind():
    seq, rnd = profile("seq", 60.0, sequential=True), profile("rnd", 60.0)
    assert sequential(seq) and not sequential(rnd)
    mixed = {
        p.name: p.normalized for p in predict([seq, rnd], ["seq", "rnd"], cores=8, constants=FAIR)
    }
    alike = predict(
        [seq, profile("seq2", 60.0, sequential=True)], ["seq", "seq2"], cores=8, constants=FAIR
    )
    # Alike: 1.2 of the device, halves. Mixed: seq needs 0.6 · (1 + penalty) of it.
    assert alike[0].normalized == pytest.approx(0.5 / 0.6)
    need = 0.6 * (1 + SEQUENTIAL_PENALTY)
    assert mixed["seq"] == pytest.approx(0.5 / need)
    assert mixed["rnd"] == pytest.approx(0.5 / 0.6)
    assert mixed["seq"] < alike[0].normalized


def test_the_hosts_cpus_are_shared_when_the_members_need_more_than_it_has():
    got = predict([profile("a", 1.0, cores=1.5), profile("b", 1.0, cores=1.5)], ["a", "b"], 2)
    assert [p.normalized for p in got] == pytest.approx([2 / 3, 2 / 3])
    assert {p.bottleneck for p in got} == {"cpu"}
    assert predict([profile("a", 1.0, cores=0.5)] * 2, ["a", "b"], 2)[0].bottleneck != "cpu"


def test_copies_of_one_application_come_from_its_measured_curve():
    app = profile("kv", 40.0, copies={2: 0.61})
    got = predict([app, app], ["kv", "kv#2"], cores=8)
    assert [p.normalized for p in got] == [0.61, 0.61]
    assert got[0].bottleneck == "measured"
    # Three copies were not measured: the model speaks.
    assert predict([app] * 3, ["x", "y", "z"], cores=8)[0].bottleneck != "measured"


def test_the_uncertainty_adds_the_solo_intervals_to_the_models_own():
    sure = predict([profile("a", 50.0), profile("b", 50.0)], ["a", "b"], cores=8)
    assert sure[0].uncertainty == pytest.approx(MODEL_ERROR)
    noisy = predict([profile("a", 50.0, half_width=100.0), profile("b", 50.0)], ["a", "b"], 8)
    assert noisy[0].uncertainty == pytest.approx((MODEL_ERROR**2 + 0.1**2) ** 0.5)


def test_fifo_large_requests_keep_their_rate_and_starve_small_ones():
    # A 1 MiB writer: 100 requests/s, 1.45 in flight, the device always busy; a 4 KiB
    # reader: 17,600 requests/s, 0.86 in flight, 86 % busy (a 100 MB/s paced disk).
    writer = profile("writer", 99.0, sequential=True, iops=191.0, depth=1.45)
    reader = profile("reader", 86.0, iops=17_600.0, depth=0.86)
    got = {p.name: p.normalized for p in predict([writer, reader], ["w", "r"], 8, constants=FIFO)}
    # The reader's requests wait behind the writer's 0.99 · 7.6 ms in flight.
    r_reader, r_writer = 0.86 / 17_600, 1.45 / 191
    slower = (r_reader + 0.99 * r_writer) / r_reader
    assert got["r"] == pytest.approx(1 / (0.14 + 0.86 * slower))
    assert got["r"] < 0.02 and got["w"] > 0.98
    fair = {p.name: p.normalized for p in predict([writer, reader], ["w", "r"], 8, constants=FAIR)}
    assert fair["r"] > 0.4  # time slices would have kept the reader going


def test_fifo_two_saturating_equals_halve_and_an_idle_member_changes_nothing():
    a, b = (profile(n, 100.0, iops=1000.0, depth=1.0) for n in ("a", "b"))
    assert [p.normalized for p in predict([a, b], ["a", "b"], 8, constants=FIFO)] == (
        pytest.approx([0.5, 0.5])
    )
    idle = profile("idle", 0.0, iops=0.0, depth=0.0)
    got = predict([a, idle], ["a", "idle"], 8, constants=FIFO)
    assert [p.normalized for p in got] == pytest.approx([1.0, 1.0])


def test_profiles_without_request_counts_are_divided_by_the_fair_law():
    heavy, light = profile("heavy", 90.0), profile("light", 30.0)  # no IOPS counted
    fifo = predict([heavy, light], ["h", "l"], 8, constants=FIFO)
    assert fifo == predict([heavy, light], ["h", "l"], 8, constants=FAIR)
