"""The validity checks on synthetic run rows built to pass or fail each of them."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pandas as pd

from contio.findings.order_check import order_confounded
from contio.findings.validity import (
    check_cells,
    cpu_saturated,
    data_in_cache,
    memory_thrashing,
    throttle_fraction,
)
from contio.findings.validity_check import ValidityCheck, caveat

MIB = 1024 * 1024
META = {"cpu_count": 2, "order": {"mode": "fixed", "seed": None}}


def row(cell: int, **values: Any) -> dict[str, Any]:
    """One run row of cell `cell` (repetition 1, container 1 unless given)."""
    base = {
        "cell_key": f"cell{cell}",
        "cell_index": cell,
        "session": 1,
        "repetition": 1,
        "container": 1,
        "status": "ok",
        "started_at": f"2026-11-24T05:{cell:02d}:00.000Z",
        "backend": "disk",
        "cpu_percent": 40.0,
        "client_cpu_percent": 50.0,
        "server_cpu_percent": None,
        "read_mib_per_sec": 100.0,
        "disk_read_bytes_per_sec": 95.0 * MIB,
        "disk_write_bytes_per_sec": 0.0,
        "disk_percent": 80.0,
        "disk_device": "loop3",
        "io_control": "",
    }
    return {**base, **values}


def frame(*rows: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame(list(rows))


def test_a_cell_that_kept_both_cores_busy_measured_the_cpu():
    busy = frame(
        row(1, cpu_percent=98.0, client_cpu_percent=150.0),
        row(1, container=2, cpu_percent=98.0, client_cpu_percent=40.0),
    )
    check = cpu_saturated("cell1", busy, META)
    assert check.passed is False
    assert "host CPU 98 % of 2 cores" in check.reason and "95 % of the machine" in check.reason
    assert check.measured["process_cpu_percent_of_cores"] == 95.0


def test_the_engines_alone_can_saturate_the_machine():
    # The host mean hides it (a quiet second at the start), the engines' sum does not.
    check = cpu_saturated("cell1", frame(row(1, cpu_percent=80.0, client_cpu_percent=190.0)), META)
    assert check.passed is False


def test_a_busy_host_with_an_idle_cell_blames_the_other_processes():
    check = cpu_saturated("cell1", frame(row(1, cpu_percent=96.0, client_cpu_percent=4.0)), META)
    assert check.passed is False
    assert "other processes kept the CPU busy: run on a quiet machine" in check.reason
    assert "fewer threads" not in check.reason


def test_a_cell_with_cpu_to_spare_passes_and_one_without_samples_cannot_tell():
    assert cpu_saturated("cell1", frame(row(1)), META).passed is True
    blank = frame(row(1, cpu_percent=None, client_cpu_percent=None))
    assert cpu_saturated("cell1", blank, META).passed is None


def test_reads_the_device_did_not_serve_came_from_the_page_cache():
    cached = frame(row(1, read_mib_per_sec=3000.0, disk_read_bytes_per_sec=2.0 * MIB))
    check = data_in_cache("cell1", cached)
    assert check.passed is False
    assert "0.1%" in check.reason and "page cache" in check.reason
    assert data_in_cache("cell1", frame(row(1))).passed is True


def test_an_idle_disk_flags_a_workload_without_read_bytes():
    # YCSB rows have no read_mib_per_sec: the disk's utilisation decides.
    idle = frame(row(1, read_mib_per_sec=None, disk_percent=0.4))
    assert data_in_cache("cell1", idle).passed is False
    busy = frame(row(1, read_mib_per_sec=None, disk_percent=60.0))
    assert data_in_cache("cell1", busy).passed is True


def test_a_server_faulting_its_pages_back_in_measured_memory_pressure():
    limit = 128.0 * MIB
    at_limit = frame(
        row(1, server_major_faults_per_sec=136.0, server_memory_bytes=limit,
            server_memory_limit_bytes=limit, client_major_faults_per_sec=0.0),
        row(1, repetition=2, server_major_faults_per_sec=121.0, server_memory_bytes=limit,
            server_memory_limit_bytes=limit, client_major_faults_per_sec=1.0),
    )  # fmt: skip
    check = memory_thrashing("cell1", at_limit)
    assert check is not None and check.passed is False
    assert "129 major page faults a second" in check.reason
    assert "the server at 128.0 of its 128.0 MiB" in check.reason
    assert check.measured["memory_fraction_of_limit"] == 1.0
    # Two containers of one repetition add up: 30 + 30 is above the threshold, 30 is not.
    pair = frame(
        row(2, server_major_faults_per_sec=30.0),
        row(2, container=2, server_major_faults_per_sec=30.0),
    )
    assert memory_thrashing("cell2", pair).passed is False
    calm = memory_thrashing("cell3", frame(row(3, server_major_faults_per_sec=30.0)))
    assert calm is not None and calm.passed is True and "limit" not in calm.reason
    assert memory_thrashing("cell4", frame(row(4))) is None  # a folder without the samples


def _throttled(limit: int) -> str:
    return json.dumps({"limits": {"read_bps": None, "write_bps": limit, "weight": None}})


def test_a_throttle_at_a_sliver_of_the_device_cannot_be_squeezed():
    runs = frame(
        row(1, disk_write_bytes_per_sec=1700.0 * MIB, disk_read_bytes_per_sec=0.0),
        row(2, io_control=_throttled(20 * MIB)),
        row(3, io_control=_throttled(400 * MIB)),
    )
    tiny = throttle_fraction("cell2", runs[runs["cell_key"] == "cell2"], runs)
    assert tiny is not None and tiny.passed is False
    assert "20.0 MiB/s, is 1.2% of the 1,700.0 MiB/s" in tiny.reason
    fair = throttle_fraction("cell3", runs[runs["cell_key"] == "cell3"], runs)
    assert fair is not None and fair.passed is True
    assert throttle_fraction("cell1", runs[runs["cell_key"] == "cell1"], runs) is None


def _twins(order: list[int]) -> pd.DataFrame:
    """Six workloads × io_controls none/vnodes, cells started in `order` (cell numbers)."""
    cells = list(itertools.product(["w1", "w2", "w3", "w4", "w5", "w6"], ["none", "vnodes"]))
    start = {cell: position for position, cell in enumerate(order)}
    return frame(
        *(
            row(n, workload=w, io_controls=c, started_at=f"2026-11-24T06:{start[n]:02d}:00Z")
            for n, (w, c) in enumerate(cells, start=1)
        )
    )


def test_a_fixed_order_that_always_runs_none_before_vnodes_is_confounded():
    checks = {c.factor: c for c in order_confounded(_twins(list(range(1, 13))), META)}
    check = checks["io_controls"]
    assert check.factor == "io_controls" and check.cell_key is None
    assert check.passed is False
    assert "none ran first in 6 of 6 pairs" in check.reason
    assert "fixed order" in check.reason


def test_a_shuffled_order_is_not_confounded():
    # Half the pairs run vnodes first: what a random order gives on average.
    order = [1, 2, 4, 3, 5, 6, 8, 7, 9, 10, 12, 11]
    found = order_confounded(_twins(order), {"order": {"mode": "random", "seed": 7}})
    check = {c.factor: c for c in found}["io_controls"]
    assert check.passed is True
    assert "random order (seed 7)" in check.reason


def test_one_pair_of_twins_cannot_tell_order_from_the_factor():
    two = frame(row(1, io_controls="none"), row(2, io_controls="vnodes"))
    [check] = order_confounded(two, META)
    assert check.passed is None


def test_check_cells_runs_every_check_on_every_cell():
    rng = random.Random(3)
    order = list(range(1, 13))
    rng.shuffle(order)
    checks = check_cells(_twins(order), META)
    names = [c.name for c in checks]
    assert names.count("cpu-saturated") == 12 and names.count("data-in-cache") == 12
    # io_controls (six sets of twins) and workload (two sets: cannot tell).
    run_wide = {c.factor: c.passed for c in checks if c.cell_key is None}
    assert set(run_wide) == {"io_controls", "workload"} and run_wide["workload"] is None
    assert "throttle-fraction" not in names  # no cell has a throttle
    assert "memory-thrashing" not in names  # no cell has major-fault samples
    assert check_cells(pd.DataFrame(), META) == []


def test_a_caveat_names_what_the_compared_cells_measured_and_an_order_of_a_compared_factor():
    def check(name, key, passed, factor=None):
        return ValidityCheck(name, key, passed, "the numbers", factor=factor)

    checks = [
        check("cpu-saturated", "a", False),
        check("cpu-saturated", "b", None),  # cannot tell: the report's section says so
        check("data-in-cache", "a", False),
        check("data-in-cache", "b", False),
        check("data-in-cache", "c", False),  # not one of the compared cells
        check("order-confounded", None, False, factor="target"),
        check("order-confounded", None, False, factor="threads"),  # not compared
    ]
    assert caveat(checks, ["a", "b"], {"target"}) == (
        "not valid here: one of the two cells measured the CPU, not storage; both cells "
        "measured the page cache, not the device; the cell order is confounded with target"
    )
    assert caveat(checks, ["a", "b", "c", "d"], {"workload"}) == (
        "not valid here: one of the 4 cells measured the CPU, not storage; 3 of 4 cells "
        "measured the page cache, not the device"
    )
    assert caveat(checks, ["b"], set()) == (
        "not valid here: the cell measured the page cache, not the device"
    )
    assert caveat(checks, ["d"], {"workload"}) is None
