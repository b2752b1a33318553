"""The samplers' parsers on /proc and cgroup v1 files captured on this project's machine
(tests/data/samplers/), and on the live host."""

from __future__ import annotations

from pathlib import Path

from contio.samplers.cgroup import parse_v1_io, parse_v2_io
from contio.samplers.host import read_cpu, read_diskstats, read_host, read_net_dev

DATA = Path(__file__).parent.parent / "data" / "samplers"


def _text(name: str) -> str:
    return (DATA / name).read_text()


def test_cpu_busy_and_total_ticks():
    busy, total = read_cpu(_text("proc-stat.txt"))
    # cpu  123778 34725 17561 23974 724 0 719 4089: idle = idle + iowait
    assert total == 123778 + 34725 + 17561 + 23974 + 724 + 0 + 719 + 4089
    assert busy == total - 23974 - 724


def test_diskstats_counts_bytes_and_busy_time_and_skips_idle_devices():
    disks = read_diskstats(_text("diskstats.txt"))
    vda = disks["vda"]
    assert (vda.reads, vda.writes) == (168766, 144549)
    assert vda.read_bytes == 20387394 * 512 and vda.write_bytes == 18906160 * 512
    assert vda.busy_ms == 60164
    # Merged requests (reads, writes) and the weighted time in queue.
    assert (vda.read_merges, vda.write_merges, vda.queue_ms) == (32582, 127575, 530726)
    assert "zram0" in disks  # a disk is kept even while idle; only idle loops are skipped
    assert "loop6" in disks


def test_net_dev_bytes_per_interface():
    net = read_net_dev(_text("net-dev.txt"))
    assert net["eth0"] == (945764128, 1498906)
    assert net["docker0"] == (156946, 236608324)
    assert "face |bytes" not in net


def test_cgroup_v1_blkio_per_device():
    io = parse_v1_io(_text("blkio-v1-service-bytes.txt"), _text("blkio-v1-serviced.txt"))
    assert list(io) == ["7:6"]  # the device-less Total line is not a device
    c = io["7:6"]
    assert (c.read_bytes, c.write_bytes) == (42135552, 133172736)
    assert (c.read_ops, c.write_ops) == (132, 272)


def test_cgroup_v2_io_stat():
    io = parse_v2_io("254:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n")
    c = io["254:0"]
    assert (c.read_bytes, c.write_bytes, c.read_ops, c.write_ops) == (4096, 8192, 1, 2)


def test_live_host_reading():
    reading = read_host()
    assert reading.cpu_total_ticks > reading.cpu_busy_ticks > 0
    assert "lo" in reading.net
