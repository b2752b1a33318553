"""`contio images list|build` as a user runs them: the real CLI process against the real dockerd."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from contio.images import registry

pytestmark = pytest.mark.docker


def _contio(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contio", *args],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_build_reuses_and_list_shows_every_image(first_builds):
    built = _contio("images", "build", "redis")
    assert built.returncode == 0, built.stderr
    # redis and the base it is built FROM, both already there: reused, not rebuilt.
    lines = built.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["contio/debian:bookworm", "reused"],
        ["contio/redis:latest", "reused"],
    ]

    listed = _contio("images", "list")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()}
    assert sorted(rows) == sorted(registry.names())
    assert all("missing" not in row for row in rows.values())
    assert first_builds["redis"].recipe_hash[:12] in rows["redis"]


def test_unknown_image_is_bad_input():
    done = _contio("images", "build", "redis", "no-such-image")
    assert done.returncode == 2
    assert "unknown image 'no-such-image'" in done.stderr
    assert "known images: debian" in done.stderr
