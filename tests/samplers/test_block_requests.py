"""Tracing one disk's completed requests through tracefs: sizes and sequential share of
real direct I/O on a real loop device; a killed profile's instance found and removed."""

from __future__ import annotations

import mmap
import os
import random
import subprocess

import pytest

from contio.samplers.block_requests import (
    TRACEFS,
    BlockRequestTrace,
    RequestTrace,
    TraceUnavailable,
    bucket_label,
    dead_instances,
    parse_line,
    remove_instance,
    tracefs,
)


def test_completion_lines_of_the_device_are_parsed_and_others_ignored():
    line = "  fio-123 [001] ..s1. 1.5: block_rq_complete: 7,3 WS () 4096 + 128 be,0,4 [0]"
    assert parse_line(line, (7, 3)) == ("W", 4096, 128)
    assert parse_line(line, (7, 4)) is None  # another disk's
    flush = "x: block_rq_complete: 7,3 FF () 0 + 0 be,0,4 [0]"
    assert parse_line(flush, (7, 3)) is None
    assert [bucket_label(n) for n in (512, 4096, 4097, 1 << 20, (1 << 20) + 1)] == [
        "4K", "4K", "8K", "1M", ">1M",
    ]  # fmt: skip


def _direct_reads(device: str, count: int, size: int, span: int) -> None:
    """`count` direct reads of `size` bytes at random aligned offsets below `span`."""
    fd = os.open(device, os.O_RDONLY | os.O_DIRECT)
    buffer = mmap.mmap(-1, size)  # page-aligned, as O_DIRECT needs
    try:
        rng = random.Random(7)
        for _ in range(count):
            os.preadv(fd, [buffer], rng.randrange(span // size) * size)
    finally:
        buffer.close()
        os.close(fd)


def test_a_loop_devices_requests_are_counted_by_size_and_order(loop_disk):
    node, disk = loop_disk
    trace = BlockRequestTrace(disk.name)
    try:
        trace.start()
    except TraceUnavailable as exc:
        pytest.skip(f"no block tracing here: {exc}")
    try:
        subprocess.run(["dd", "if=/dev/zero", f"of={node}", "bs=64k", "count=100",
                        "oflag=direct", "status=none"], check=True)  # fmt: skip
        _direct_reads(node, 200, 4096, 1 << 30)
    finally:
        stats = trace.stop()
    assert stats.sizes == {"64K": 100, "4K": 200}
    assert stats.requests == 300
    # The writes follow each other; random reads in a GiB almost never do.
    assert 100 <= stats.sequential <= 104
    assert not [p for p in (TRACEFS / "instances").glob(f"contio-{os.getpid()}-*")]


def test_a_trace_that_cannot_start_says_why_and_a_dead_instance_is_cleaned_up(v1_root):
    missing = RequestTrace.begin("nosuchdisk").finish()
    assert missing["device"] == "nosuchdisk" and "no block device" in str(missing["unavailable"])
    assert "no single disk" in str(RequestTrace.begin(None).finish()["unavailable"])
    try:
        root = tracefs()
    except TraceUnavailable as exc:
        pytest.skip(f"no tracefs here: {exc}")
    dead = subprocess.Popen(["true"])
    dead.wait()
    instance = root / "instances" / f"contio-{dead.pid}-test"
    instance.mkdir()
    try:
        assert instance in dead_instances()
    finally:
        remove_instance(instance)
    assert not instance.exists()


def test_interleaved_streams_and_split_halves_in_either_order_are_sequential():
    from contio.samplers.block_requests import RequestStats

    stats = RequestStats()
    for k in range(50):  # two sequential writers, their 1 MiB requests alternating
        stats.add("W", 2048 * k, 2048)
        stats.add("W", 10**7 + 2048 * k, 2048)
    assert stats.sequential == 100  # each stream's first too, once its second came
    halves = RequestStats()
    for k in range(20):  # a 1 MiB write split in two, the second half done first
        halves.add("W", 2048 * k + 1024, 1024)
        halves.add("W", 2048 * k, 1024)
    assert halves.sequential == 40
    rng = RequestStats()
    for k in range(100):  # random 4 KiB reads over a GiB: almost never adjacent
        rng.add("R", (k * 7919 * 8) % (1 << 21), 8)
    assert rng.sequential <= 2
