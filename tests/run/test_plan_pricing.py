"""`contio plan`'s prices of loads: file workloads by the bytes they lay out (at the slow
device's cap where the backend has one), databases by records at assumed rates."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.run.pricing import (
    ASSUMED_LAYOUT_BPS,
    TPCC_LOAD_S_PER_WAREHOUSE,
    estimates,
    load_seconds,
    run_seconds,
)

FILES = """
name: files
backends:
  plain: {type: local-dir}
  slow: {type: local, mode: device, device: loop, loop_size: 1GiB, format: xfs,
         device_bandwidth: 50MB/s}
factors:
  backend: [plain, slow]
  workload:
    - {kind: sysbench, name: rndrw, options: {file-test-mode: rndrw, file-total-size: 64M}}
    - {kind: fio, name: two-jobs, job: {rw: randread, size: 32m, numjobs: 2}}
  containers: [2]
stop: {rule: fixed-time, seconds: 10, repetitions: 1}
"""


def test_file_loads_are_priced_by_the_bytes_they_lay_out_and_the_devices_cap():
    spec = parse_spec_text(FILES, "files.yaml", Path.cwd())
    cells = {(c.level["backend"], c.level["workload"]): c for c in expand(spec)}
    sysbench = cells[("plain", "rndrw")].members[0]
    assert load_seconds(sysbench, spec, "plain") == pytest.approx((64 << 20) / ASSUMED_LAYOUT_BPS)
    assert load_seconds(sysbench, spec, "slow") == pytest.approx((64 << 20) / 50e6)
    fio = cells[("slow", "two-jobs")].members[0]
    assert load_seconds(fio, spec, "slow") == pytest.approx(2 * (32 << 20) / 50e6)
    # Two containers lay their files out at once on the same device: their bytes add up.
    priced = estimates(list(cells.values()), spec)
    slow_cell = cells[("slow", "rndrw")]
    assert priced[slow_cell.key][0] == pytest.approx(2 * (64 << 20) / 50e6 + 10 + 2 * 0.3)


FIO_RUNS = """
name: fio-runs
backends:
  slow: {type: local, mode: device, device: loop, loop_size: 1GiB, format: xfs,
         device_bandwidth: 50MB/s}
factors:
  workload:
    - {kind: fio, name: timed, job: {rw: read, size: 1g, time_based: 1, runtime: 2m}}
    - {kind: fio, name: sized, job: {rw: read, size: 100m}}
    - {kind: fio, name: capped, job: {rw: read, size: 1g, runtime: 4}}
stop: {rule: workload, repetitions: 1}
"""


def test_a_fio_run_that_goes_as_its_job_says_is_priced_by_runtime_or_bytes():
    spec = parse_spec_text(FIO_RUNS, "fio-runs.yaml", Path.cwd())
    members = {c.level["workload"]: c.members[0] for c in expand(spec)}
    assert run_seconds(members["timed"], spec, "slow") == 120.0  # its runtime, not its size
    assert run_seconds(members["sized"], spec, "slow") == pytest.approx((100 << 20) / 50e6)
    assert run_seconds(members["capped"], spec, "slow") == 4.0  # bytes, at most its runtime


TPCC = """
name: tpcc-loads
runtime: {type: docker}
factors:
  target: [mariadb]
  workload: [{kind: tpcc, warehouses: 5}, {kind: tpcc, warehouses: 50}]
properties: {recordcount: 250000}
stop: {rule: fixed-time, seconds: 10, repetitions: 1}
"""


def test_a_tpcc_load_is_priced_by_its_warehouses_not_recordcount():
    spec = parse_spec_text(TPCC, "tpcc-loads.yaml", Path.cwd())
    five, fifty = (c.members[0] for c in expand(spec))
    assert load_seconds(fifty, spec) == pytest.approx(10 * load_seconds(five, spec))
    assert load_seconds(five, spec) == pytest.approx(5 * TPCC_LOAD_S_PER_WAREHOUSE)
