"""A short direct-I/O measurement of a device's bandwidth, for throttles given in percent.

`read_bps: 25%` in an io_controls group means 25 % of what the device moved when the run
started: a throttle of a fixed 10 MB/s is a different experiment on a 100 MB/s disk and
on a 2 GB/s loop device (paper 004's throttles were a fifth to a half of its disk's).
`calibrate` writes a file of `size` bytes in `block`-sized direct writes (O_DIRECT, then
fsync) in a directory on the device, reads it back the same way, removes it, and returns
both rates. Direct I/O bypasses the page cache, so the numbers are the device's (or the
loop device's backing file's), not memory's.
"""

from __future__ import annotations

import mmap
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from contio.errors import QosError

CALIBRATION_BYTES = 256 << 20
"""Default size of the calibration file: long enough to leave the device's own cache."""
CALIBRATION_BLOCK = 1 << 20


@dataclass(frozen=True)
class Calibration:
    """What `calibrate` measured: bytes/s written and read with direct I/O."""

    path: str
    bytes: int
    block: int
    write_bps: float
    read_bps: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _direct(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags | getattr(os, "O_DIRECT", 0), 0o600)
    except OSError as exc:
        raise QosError(
            f"calibrating the device's bandwidth: {path} does not take direct I/O ({exc.strerror})"
        ) from exc


def calibrate(
    directory: Path, size: int = CALIBRATION_BYTES, block: int = CALIBRATION_BLOCK
) -> Calibration:
    """The direct-I/O write and read bandwidth of the device holding `directory`."""
    if size < block or size % block:
        raise QosError(f"calibration size {size} must be a positive multiple of {block}")
    path = Path(directory) / f".contio-calibration-{os.getpid()}"
    buffer = mmap.mmap(-1, block)  # page-aligned, as O_DIRECT needs
    buffer.write(os.urandom(block))
    made = False
    try:
        # O_EXCL: never through a link or into a file someone put at this name.
        fd = _direct(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        made = True
        try:
            start = time.perf_counter()
            for _ in range(size // block):
                os.write(fd, buffer)
            os.fsync(fd)
            wrote = time.perf_counter() - start
        finally:
            os.close(fd)
        fd = _direct(path, os.O_RDONLY)
        try:
            start = time.perf_counter()
            done = 0
            while done < size:
                got = os.readv(fd, [buffer])
                if got <= 0:
                    break
                done += got
            read = time.perf_counter() - start
        finally:
            os.close(fd)
    except OSError as exc:
        raise QosError(f"calibrating the device's bandwidth in {directory}: {exc}") from exc
    finally:
        buffer.close()
        if made:
            path.unlink(missing_ok=True)
    if done < size:
        raise QosError(f"calibration read {done} of {size} bytes back from {path}")
    return Calibration(str(path), size, block, size / max(wrote, 1e-9), size / max(read, 1e-9))
