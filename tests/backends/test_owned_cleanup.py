"""`contio cleanup` removes only directories that carry contio's own owner record: never
through a symbolic link planted in the temp directory or the state directory, never a
directory whose lock file was forged or copied; a killed run's real leftovers still go.

Each test runs cleanup as a user does, with its own temp directory (TMPDIR) and state
directory, and checksums what it must not touch before and after.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from contio.host.owner_lock import OwnerLock


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under `root` (links as their target's name) with its checksum."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            found[key] = "-> " + os.readlink(path)
        elif path.is_file():
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


class Host:
    """A temp directory and a state directory of the test's own, and `contio cleanup`."""

    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path / "tmp"
        self.state = tmp_path / "state"
        self.tmp.mkdir()
        self.state.mkdir()
        self.env = {**os.environ, "TMPDIR": str(self.tmp), "CONTIO_STATE_DIR": str(self.state)}
        self.cwd = tmp_path

    def cleanup(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "-m", "contio", "cleanup", *args],
            cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=300,
            check=False,
        )  # fmt: skip
        assert "Traceback" not in done.stderr, done.stderr
        return done


@pytest.fixture
def host(tmp_path: Path) -> Host:
    return Host(tmp_path)


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """Someone's folder of files, with a lock file as an older contio wrote (empty, free)."""
    folder = tmp_path / "someone" / "research"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "results.csv").write_text("a,b\n1,2\n")
    (folder / "paper.tex").write_text("\\section{Years of work}\n")
    (folder / "owner.lock").write_text("")
    return folder


def test_a_planted_symlink_is_never_followed(host, victim):
    (host.tmp / "contio-x").symlink_to(victim)
    before = tree_digest(victim)
    done = host.cleanup()
    assert done.returncode == 0, done.stderr
    assert tree_digest(victim) == before
    assert f"left alone: {host.tmp / 'contio-x'}: a symbolic link" in done.stderr
    assert (host.tmp / "contio-x").is_symlink()


def test_a_forged_or_copied_owner_record_is_not_contios(host, victim):
    real = host.tmp / "contio-real"
    real.mkdir()
    lock = OwnerLock(real, "local-dir")
    lock.acquire()
    copied = (real / "owner.lock").read_text()
    lock.release()
    real.rmdir()
    # The record of another directory, copied into a victim planted as a real directory.
    planted = host.tmp / "contio-planted"
    victim.rename(planted)
    (planted / "owner.lock").write_text(copied)
    before = tree_digest(planted)
    done = host.cleanup()
    assert done.returncode == 0, done.stderr
    assert tree_digest(planted) == before
    assert f"left alone: {planted}: its owner record names another" in done.stderr


def test_a_state_directory_that_is_a_symlink_is_not_looked_in(host, victim, tmp_path):
    """A backend 'workdir' reached through a linked `backends/` whose journal names the
    victim: cleanup must neither look there nor undo that journal."""
    elsewhere = tmp_path / "elsewhere"
    workdir = elsewhere / "local-1234abcd"
    workdir.mkdir(parents=True)
    (workdir / "journal.json").write_text(json.dumps([{"kind": "dir", "path": str(victim)}]))
    (workdir / "owner.lock").write_text("")
    (host.state / "backends").symlink_to(elsewhere)
    before = tree_digest(victim)
    done = host.cleanup()
    assert done.returncode == 0, done.stderr
    assert tree_digest(victim) == before
    assert f"left alone: {host.state / 'backends'}: a symbolic link" in done.stderr
    assert (workdir / "journal.json").exists()


# A run stand-in: a local-dir root made and locked by contio, a link inside it to the
# victim, then killed.
MAKE_ROOT_AND_WAIT = textwrap.dedent("""
    import os, sys
    from contio.backends import registry
    backend = registry.create("local-dir", {}, experiment="killed")
    backend.provision()
    data = backend.new_directory("data")
    (data / "rows").write_text("x" * 100)
    os.symlink(sys.argv[1], data / "link-to-victim")
    print(backend.root, flush=True)
    sys.stdin.read()
""")


def test_a_killed_runs_root_is_removed_without_following_links_inside(host, victim):
    run = subprocess.Popen(
        [sys.executable, "-c", MAKE_ROOT_AND_WAIT, str(victim)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=host.env,
    )  # fmt: skip
    try:
        root = Path(run.stdout.readline().strip())
        assert root.parent == host.tmp, root
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
        run.stdout.close()
        run.stdin.close()
    before = tree_digest(victim)
    listed = host.cleanup("--dry-run")
    assert f"data-dir {root.name} ({root})" in listed.stdout, listed.stdout + listed.stderr
    done = host.cleanup()
    assert done.returncode == 0, done.stderr
    assert not root.exists() and not root.is_symlink()
    assert tree_digest(victim) == before
