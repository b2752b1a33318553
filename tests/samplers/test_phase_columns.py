"""A run phase's samples as index columns (time-weighted means; the data's disk or the
busiest), and a local process's counters read from /proc for the process runtime."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contio.samplers import phase
from contio.samplers.cgroup import ContainerGone
from contio.samplers.phase import BUSIEST, COLUMNS, data_disk, phase_columns
from contio.samplers.process import ProcessCounters
from contio.samplers.series import Sampler


def _host(t: float, cpu: float, vda: float, loop0: float, eth0_rx: float) -> dict:
    disk = {"read_bytes_per_s": 0.0, "write_bytes_per_s": 0.0}
    return {
        "source": "host",
        "t": t,
        "cpu_percent": cpu,
        "disks": {
            "vda": {**disk, "util_percent": vda, "write_bytes_per_s": 10.0 * vda},
            "loop0": {**disk, "util_percent": loop0},
        },
        "net": {
            "eth0": {"rx_bytes_per_s": eth0_rx, "tx_bytes_per_s": 1.0},
            "veth1": {"rx_bytes_per_s": 1e9, "tx_bytes_per_s": 1e9},
        },
    }


def _process(source: str, t: float, cpu: float, write: float) -> dict:
    return {
        "source": source, "t": t, "cpu_percent": cpu, "memory_bytes": 1000, "io": {},
        "task_read_bytes_per_s": 0.0, "task_write_bytes_per_s": write,
    }  # fmt: skip


def _write(path: Path, samples: list[dict]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    return path


@pytest.fixture
def nics(monkeypatch, tmp_path):
    """eth0 is a NIC (has a device), veth1 is not, as in /sys/class/net."""
    (tmp_path / "eth0" / "device").mkdir(parents=True)
    (tmp_path / "veth1").mkdir()
    monkeypatch.setattr(phase, "SYS_NET", tmp_path)


def test_means_are_weighted_by_the_seconds_each_sample_covers(tmp_path, nics):
    # The last sample covers the phase's last 0.5 s: it weighs half as much.
    path = _write(tmp_path / "m.jsonl", [
        _host(1.0, 40.0, 10.0, 90.0, 100.0), _process("client-c1", 1.0, 50.0, 8.0),
        _process("server-c1", 1.0, 20.0, 4.0), _process("client-c2", 1.0, 30.0, 0.0),
        _host(2.0, 60.0, 30.0, 0.0, 300.0), _process("client-c1", 2.0, 70.0, 8.0),
        _host(2.5, 100.0, 70.0, 0.0, 600.0),
    ])  # fmt: skip
    columns = phase_columns(path, 2, "vda")
    one, two = columns[1], columns[2]
    assert one["cpu_percent"] == pytest.approx((40 + 60 + 0.5 * 100) / 2.5)
    assert one["disk_percent"] == pytest.approx((10 + 30 + 0.5 * 70) / 2.5)
    assert one["disk_write_bytes_per_sec"] == pytest.approx(10 * one["disk_percent"])
    # Only NICs: bridged and veth traffic would count the same bytes again.
    assert one["net_rx_bytes_per_sec"] == pytest.approx((100 + 300 + 0.5 * 600) / 2.5)
    assert one["disk_device"] == "vda" and two["disk_device"] == "vda"
    assert one["client_cpu_percent"] == pytest.approx(60.0)
    assert one["server_cpu_percent"] == 20.0 and one["server_write_bytes_per_sec"] == 4.0
    assert two["client_cpu_percent"] == 30.0 and two["server_cpu_percent"] is None
    assert two["cpu_percent"] == one["cpu_percent"]  # host columns: the phase's, shared
    assert set(COLUMNS) <= set(one)


def test_without_a_data_disk_the_busiest_disk_of_each_second_counts(tmp_path, nics):
    path = _write(tmp_path / "m.jsonl", [
        _host(1.0, 0.0, 10.0, 90.0, 0.0), _host(2.0, 0.0, 30.0, 0.0, 0.0),
    ])  # fmt: skip
    [(_, columns)] = phase_columns(path, 1, None).items()
    assert columns["disk_percent"] == pytest.approx((90 + 30) / 2)
    assert columns["disk_device"] == BUSIEST


def test_a_stripe_is_sampled_as_the_sum_of_its_members(tmp_path, nics):
    def host(t: float, loop1_read: float | None) -> dict:
        sample = _host(t, 10.0, 0.0, 30.0, 0.0)
        sample["disks"]["loop0"] |= {"read_bytes_per_s": 100.0, "queue_depth": 1.0}
        if loop1_read is not None:  # a member idle since boot is not in diskstats
            sample["disks"]["loop1"] = {
                "util_percent": 60.0, "read_bytes_per_s": loop1_read,
                "write_bytes_per_s": 0.0, "queue_depth": 2.0,
            }  # fmt: skip
        return sample

    path = _write(tmp_path / "m.jsonl", [host(1.0, 300.0), host(2.0, None)])
    columns = phase_columns(path, 1, "loop0+loop1")[1]
    assert columns["disk_device"] == "loop0+loop1"
    assert columns["disk_read_bytes_per_sec"] == pytest.approx((400 + 100) / 2)
    assert columns["disk_queue_depth"] == pytest.approx((3 + 1) / 2)
    # Utilization is the members' mean: the volume's busy share, not one disk's.
    assert columns["disk_percent"] == pytest.approx(((30 + 60) / 2 + 30 / 2) / 2)


def test_nothing_sampled_gives_empty_columns(tmp_path):
    columns = phase_columns(tmp_path / "absent.jsonl", 1, "vda")[1]
    assert all(columns[c] is None for c in COLUMNS) and columns["disk_device"] is None


def test_the_data_disk_of_a_directory_is_the_disk_under_its_file_system(tmp_path):
    disk = data_disk([None, tmp_path])
    assert disk is None or (Path("/sys/block") / disk).exists()


def test_a_local_process_is_sampled_from_proc_until_it_exits(tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 4096)"],
        stdout=(tmp_path / "out").open("wb"),
    )  # busy: CPU and bytes written
    try:
        counters = ProcessCounters(child.pid)
        sampler = Sampler({}, tmp_path / "m.jsonl", interval=0.2, readers={"client-c1": counters})
        sampler.start()
        while sampler.totals["client-c1"].samples < 3:
            time.sleep(0.05)  # polling the sampler's count, not guessing a duration
        sampler.stop()
    finally:
        child.kill()
        child.wait()
    totals = sampler.totals["client-c1"]
    assert totals.cpu_seconds > 0 and totals.peak_memory_bytes > 0
    columns = phase_columns(tmp_path / "m.jsonl", 1, None)[1]
    assert columns["client_cpu_percent"] > 0 and columns["client_memory_bytes"] > 0
    with pytest.raises(ContainerGone):
        counters.read()  # reaped: gone


class _InterruptedRead:
    """Counters whose first read is cut short, as a SIGINT during `start()` does."""

    def read(self):
        raise KeyboardInterrupt


def test_stopping_a_sampler_whose_start_was_interrupted_raises_nothing_new(tmp_path):
    sampler = Sampler({}, tmp_path / "m.jsonl", readers={"client-c1": _InterruptedRead()})
    with pytest.raises(KeyboardInterrupt):
        sampler.start()
    sampler.stop()  # the executor's `finally` does this; no thread was started to join
    assert not (tmp_path / "m.jsonl").exists()


def test_requests_merges_and_queue_depth_of_the_data_disk(tmp_path, nics):
    def host(t: float, reads: float, merges: float, depth: float) -> dict:
        sample = _host(t, 10.0, 50.0, 0.0, 0.0)
        sample["disks"]["vda"] |= {
            "read_ops_per_s": reads, "write_ops_per_s": 10.0,
            "merges_per_s": merges, "queue_depth": depth,
        }  # fmt: skip
        return sample

    path = _write(tmp_path / "m.jsonl", [host(1.0, 90.0, 0.0, 1.0), host(2.0, 190.0, 100.0, 3.0)])
    one = phase_columns(path, 1, "vda")[1]
    assert one["disk_read_ops_per_sec"] == pytest.approx(140.0)
    assert one["disk_write_ops_per_sec"] == pytest.approx(10.0)
    # 50 merged of 200 requests given to the block layer per second, on average.
    assert one["disk_merged_percent"] == pytest.approx(25.0)
    assert one["disk_queue_depth"] == pytest.approx(2.0)
    # Samples written before these columns existed leave them empty.
    old = phase_columns(_write(tmp_path / "o.jsonl", [_host(1.0, 1.0, 1.0, 0.0, 0.0)]), 1, "vda")
    assert old[1]["disk_merged_percent"] is None and old[1]["disk_queue_depth"] is None
