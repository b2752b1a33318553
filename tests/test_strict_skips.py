"""`make test` fails on a skip that tests/allowed_skips.py does not list."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent
SKIPPING = """
import pytest

def test_without_cgroups():
    pytest.skip("cgroup v1 is not mounted")

def test_without_nfs():
    pytest.skip("kernel 6.1 has no NFS client: nfs is not in /proc/filesystems")
"""


def _pytest(tmp_path: Path, strict: bool, *select: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    env = {**os.environ, "PYTHONPATH": str(TESTS), "CONTIO_TEST_STRICT": "1" if strict else "0"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "strict_skips", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(tmp_path / "test_skipping.py"), *select],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_an_unlisted_skip_fails_a_strict_session(tmp_path: Path) -> None:
    done = _pytest(tmp_path, True)
    assert done.returncode == 1, done.stdout
    assert "SKIP NOT ALLOWED" in done.stdout and "cgroup v1 is not mounted" in done.stdout
    assert "no NFS client" not in done.stdout.split("SKIP NOT ALLOWED", 1)[1].splitlines()[0]


def test_a_listed_skip_passes_and_without_strict_nothing_changes(tmp_path: Path) -> None:
    assert _pytest(tmp_path, True, "-k", "nfs").returncode == 0
    assert _pytest(tmp_path, False).returncode == 0
