"""Where contio writes a report, an export, a profile or a results folder's derived files:
never renamed over a FIFO, a device or a socket (a rename does not look at what it
replaces: `contio report -o /dev/null` as root put an HTML file where the null device
was). Each is refused, exit code 2, naming what is there, and it is still there."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from contio_command import contio_in

SPEC = (
    "name: out\ntargets: [null]\nworkloads: [workloada]\nthreads: [1]\nrepetitions: 1\n"
    "backend: {type: local-dir, path: ./data}\n"
    "properties: {recordcount: 20, operationcount: 100}\n"
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """One finished run's results folder."""
    home = tmp_path_factory.mktemp("out")
    (home / "data").mkdir()
    (home / "spec.yaml").write_text(SPEC)
    done = contio_in(home, "run", "spec.yaml", "--results-dir", "results")
    assert done.returncode == 0, done.stderr
    (found,) = (home / "results").iterdir()
    return found


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _device(path: Path) -> None:
    os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 3))  # the null device's numbers


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(path))


PLACES = {
    "fifo": (_fifo, stat.S_ISFIFO, "a FIFO (named pipe)"),
    "device": (_device, stat.S_ISCHR, "a character device"),
    "socket": (_socket, stat.S_ISSOCK, "a socket"),
}
COMMANDS = {
    "report": lambda folder, out: ("report", str(folder), "-o", out),
    "export": lambda folder, out: ("export", str(folder), "-o", out),
    "profile": lambda folder, out: ("profile", str(folder.parent.parent / "spec.yaml"), "-o", out),
}


@pytest.mark.parametrize(
    ("command", "kind"), [("report", "device"), ("export", "fifo"), ("profile", "socket")]
)
def test_no_output_replaces_what_is_not_a_regular_file(folder, tmp_path, command, kind):
    make, is_kind, named = PLACES[kind]
    make(tmp_path / "out")
    before = sorted(p.name for p in folder.parent.iterdir())
    done = contio_in(tmp_path, *COMMANDS[command](folder, "out"), timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(
        f"error: cannot write {tmp_path / 'out' if command == 'profile' else 'out'}: it is {named}, not a regular file"
    ), done.stderr
    assert is_kind(os.lstat(tmp_path / "out").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no partial file either
    assert sorted(p.name for p in folder.parent.iterdir()) == before  # profile ran nothing


def test_a_results_folder_file_that_became_a_fifo_is_not_replaced(folder):
    # `contio report FOLDER` rewrites the folder's report.html: a FIFO there was replaced.
    derived = folder / "report.html"
    kept = derived.read_bytes()
    derived.unlink()
    os.mkfifo(derived)
    try:
        done = contio_in(folder, "report", ".", timeout=60)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "report.html: it is a FIFO (named pipe), not a regular file" in done.stderr
        assert stat.S_ISFIFO(os.lstat(derived).st_mode)
    finally:
        derived.unlink()
        derived.write_bytes(kept)
    again = contio_in(folder, "report", ".", timeout=60)
    assert again.returncode == 0, again.stderr
    assert not [p for p in folder.iterdir() if p.name.endswith(".partial")]
