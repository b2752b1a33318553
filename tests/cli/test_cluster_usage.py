"""`contio cluster` usage errors exit 2 naming the fix, before anything is built: the
status of a cluster that is not up, `up` on a name that is taken or on a subnet that
overlaps one in use on this machine."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contio.gluster.local_cluster import REQUIRED_PROGRAMS


def _cluster(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contio", "cluster", *args],
        capture_output=True, text=True, check=False, cwd=state,
        env={**os.environ, "CONTIO_STATE_DIR": str(state)},
    )  # fmt: skip


def test_the_status_of_a_cluster_that_is_not_up_is_a_usage_error(tmp_path):
    done = _cluster(tmp_path, "status", "--name", "nosuch")
    assert done.returncode == 2, done.stderr
    assert "no local cluster 'nosuch' is up" in done.stderr


def test_up_on_a_taken_name_or_an_overlapping_subnet_is_a_usage_error(tmp_path):
    missing = [p for p in REQUIRED_PROGRAMS if shutil.which(p) is None]
    if missing:
        pytest.skip(f"`cluster up` checks for {', '.join(missing)} first")
    (tmp_path / "clusters" / "taken").mkdir(parents=True)
    taken = _cluster(tmp_path, "up", "--name", "taken", "--subnet", "10.219.0.0/24")
    assert taken.returncode == 2 and "'taken' already exists" in taken.stderr, taken.stderr
    # 127.0.0.1/8 is on every machine's loopback.
    overlap = _cluster(tmp_path, "up", "--name", "fresh", "--subnet", "127.0.0.0/24")
    assert overlap.returncode == 2 and "overlaps 127.0.0.1/8" in overlap.stderr, overlap.stderr
    assert sorted(p.name for p in (tmp_path / "clusters").iterdir()) == ["taken"]
