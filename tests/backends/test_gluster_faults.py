"""A node stopped while writing: on a dispersed 3 (redundancy 1) and a replicated 3 volume,
writes go on while the node is down, everything written reads back with the right
checksum after the restart, and self-heal completes.

The writer is a Python thread writing files through the FUSE mount; the engine's
verify mode (issue 3) will replace it in the spec-level fault test.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path

import pytest

from contio.backends import registry
from contio.gluster.faults import FaultSchedule, NodeStopEvent

BLOCK = 64 * 1024
# Paced so the outage leaves a few hundred files to heal: on 2 shared CPUs the self-heal
# daemons heal some tens of files per second, and the test should take seconds, not minutes.
PAUSE_SECONDS = 0.05
WRITE_AFTER_RESTART_SECONDS = 2.0


class ChecksumWriter(threading.Thread):
    """Writes numbered files of random bytes, keeping each one's SHA-256 and write time."""

    def __init__(self, directory: Path, schedule: FaultSchedule):
        super().__init__(daemon=True)
        self.directory = directory
        self.schedule = schedule
        self.written: list[tuple[Path, str, float]] = []
        self.error: BaseException | None = None
        self.stop_flag = threading.Event()

    def _restarted_long_enough(self) -> bool:
        restarted = self.schedule.records[0].restarted_at
        return (
            restarted is not None
            and self.schedule.elapsed() > restarted + WRITE_AFTER_RESTART_SECONDS
        )

    def run(self) -> None:
        try:
            n = 0
            while not self.stop_flag.is_set() and not self._restarted_long_enough():
                payload = os.urandom(BLOCK)
                path = self.directory / f"r{n:06d}"
                with open(path, "wb") as fh:
                    fh.write(payload)
                    fh.flush()
                    os.fsync(fh.fileno())
                digest = hashlib.sha256(payload).hexdigest()
                self.written.append((path, digest, self.schedule.elapsed()))
                n += 1
                time.sleep(PAUSE_SECONDS)
        except BaseException as exc:  # noqa: BLE001 - surfaced by the test
            self.error = exc


@pytest.mark.parametrize(
    "options",
    [
        {"volume_type": "dispersed", "disperse": 3, "redundancy": 1},
        {"volume_type": "replicated", "replica": 3},
    ],
    ids=["dispersed-3-1", "replicated-3"],
)
def test_node_stop_while_writing_loses_nothing(gluster_cluster, no_leaks, options):
    backend = registry.create("gluster", {**options, "cluster": gluster_cluster})
    with backend:
        location = backend.data_location("writer")
        event = NodeStopEvent(node=2, at=1.0, restart_at=4.0, heal_timeout=240)
        schedule = FaultSchedule(backend.cluster, backend.volume, [event])
        schedule.start()
        writer = ChecksumWriter(location.path, schedule)
        writer.start()
        writer.join(120)  # stops on its own 2 s after the restart
        writer.stop_flag.set()
        records = schedule.join(timeout=400)  # returns after restart and completed heal
        assert writer.error is None, f"writes failed: {writer.error}"
        record = records[0]
        assert record.stopped_at is not None and record.restarted_at is not None
        assert record.healed_at is not None and record.heal_seconds is not None
        during = [w for w in writer.written if record.stopped_at < w[2] < record.restarted_at]
        assert during, "no write completed while the node was down"
        after = [w for w in writer.written if w[2] > record.restarted_at]
        assert after, "no write completed after the restart"
        bad = [p for p, digest, _ in writer.written
               if hashlib.sha256(p.read_bytes()).hexdigest() != digest]  # fmt: skip
        assert not bad, f"{len(bad)} of {len(writer.written)} files corrupted: {bad[:5]}"
        print(  # shown with -s; the numbers quoted in docs/backends.md
            f"{options['volume_type']}: {len(writer.written)} files, {len(during)} written while "
            f"node 2 was down, heal {record.heal_seconds:.1f} s after restart"
        )
        assert len(list(location.path.iterdir())) == len(writer.written)
