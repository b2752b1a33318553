"""Major page faults, the sign of a process re-reading its own pages from disk, counted
for a real process that maps a file whose pages were just evicted."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from contio.samplers.process import ProcessCounters

PAGES = 256

# Writes a file, evicts its pages from the page cache, then on cue maps it and touches
# every page: each touch has to read from disk, a major fault.
CHILD = textwrap.dedent(
    """
    import mmap, os, sys
    path = sys.argv[1]
    with open(path, "wb") as f:
        f.write(os.urandom(mmap.PAGESIZE * int(sys.argv[2])))
        f.flush()
        os.fsync(f.fileno())
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    print("ready", flush=True)
    sys.stdin.readline()
    view = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    total = sum(view[i] for i in range(0, len(view), mmap.PAGESIZE))
    print("done", total, flush=True)
    sys.stdin.readline()
    """
)


def test_a_process_that_maps_evicted_pages_counts_major_faults(tmp_path: Path):
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path / "mapped"), str(PAGES)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline().startswith("ready")
        counters = ProcessCounters(child.pid)
        before = counters.read().major_faults
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().startswith("done")
        after = counters.read().major_faults
        # Read-around brings in the neighbours of a faulting page: fewer faults than pages.
        assert after - before >= 1, (before, after)
        assert counters.read().memory_limit_bytes is None  # a process has no cgroup limit
    finally:
        child.kill()
        child.wait()
