"""A spec's file workloads stay in the backend's data directory (issue 29, point A).

A fio job's load phase writes every block of its files, even for a read job: a spec
whose `filename` or `directory` pointed elsewhere destroyed a user's file, overwrote a
`<job>.0.0` in a folder of theirs and wrote over a device. `contio plan` and `contio
run` refuse each before anything is made (exit 2, the field named, what is allowed),
and the user's file, folder and device keep their checksums.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from contio_command import contio_in

ALLOWED = "allowed: a file name in the backend's data directory"


def checksum(path: Path, size: int | None = None) -> str:
    with path.open("rb") as source:
        return hashlib.sha256(source.read(size if size is not None else -1)).hexdigest()


def contents(folder: Path) -> dict[str, str]:
    """Every file under `folder` and its checksum."""
    return {
        str(p.relative_to(folder)): checksum(p) for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture
def user(tmp_path: Path) -> dict[str, Path]:
    """A user's home: a file of theirs, a folder holding a fio job's default file name,
    an empty data folder for the backend, and a folder to run contio from."""
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    (home / "data").mkdir()
    (home / "mine").mkdir()
    (home / "precious.db").write_bytes(os.urandom(256 << 10))
    (home / "mine" / "r.0.0").write_bytes(os.urandom(256 << 10))  # fio's name for job r
    (home / "mine" / "notes.txt").write_text("the user's own\n")
    return {"home": home, "work": home / "work", "data": home / "data"}


def spec_text(data: Path, workload: str, extra: str = "") -> str:
    return (
        f"name: paths\nbackend: {{type: local-dir, path: {data}}}\n"
        f"factors: {{workload: [{workload}]}}\nstop: {{rule: fixed-time, seconds: 1, "
        f"repetitions: 1}}\n{extra}"
    )


CASES = [
    pytest.param(
        "{kind: fio, job: {rw: randread, bs: 4k, size: 1m, filename: HOME/precious.db}}",
        "",
        "factors.workload[0]: job.filename: 'HOME/precious.db' is an absolute path",
        id="absolute-filename",
    ),
    pytest.param(
        "{kind: fio, job: {rw: read, bs: 4k, size: 1m, filename: ../precious.db}}",
        "",
        "factors.workload[0]: job.filename: '../precious.db' leads out of the data directory",
        id="dotdot-filename",
    ),
    pytest.param(
        "{kind: fio, name: r, job: {rw: read, bs: 4k, size: 1m, directory: HOME/mine}}",
        "",
        "factors.workload[0]: job.directory: contio sets the directory",
        id="directory-elsewhere",
    ),
    pytest.param(
        "{kind: fio, file: job.fio}",
        "",
        "[r] directory: contio sets the directory",
        id="job-file-directory",
    ),
    pytest.param(
        "{kind: fio, job: {rw: read, bs: 4k, size: 1m}}",
        "properties: {fio.filename: HOME/precious.db}\n",
        "properties.fio.filename: 'HOME/precious.db' is an absolute path",
        id="property-filename",
    ),
    pytest.param(
        "{kind: sysbench, options: {file-test-mode: seqrd, file-num: 1, "
        "file-total-size: 1m, file-dir: HOME/mine}}",
        "",
        "factors.workload[0]: options.file-dir: contio sets the directory",
        id="sysbench-file-dir",
    ),
]


@pytest.mark.parametrize(("workload", "extra", "message"), CASES)
def test_plan_and_run_refuse_files_outside_the_data_directory(
    user, engine, workload, extra, message
):
    home, work = user["home"], user["work"]
    (work / "job.fio").write_text(f"[r]\nrw=randread\nbs=4k\nsize=1m\ndirectory={home}/mine\n")
    spec = work / "my.yaml"
    spec.write_text(spec_text(user["data"], workload, extra).replace("HOME", str(home)))
    before = contents(home)
    for command in ("plan", "run"):
        done = contio_in(work, command, "my.yaml")
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stderr
        assert message.replace("HOME", str(home)) in done.stderr, done.stderr
        if "sysbench" not in workload:
            assert ALLOWED in done.stderr or "leave `directory` out" in done.stderr
    assert contents(home) == before  # nothing written, nothing left
    assert not (work / "results").exists()


def test_a_fio_job_on_a_device_is_refused_and_the_device_keeps_its_bytes(user, engine, loop_disk):
    node, _ = loop_disk
    with open(node, "r+b") as device:
        device.write(os.urandom(16 << 20))  # data of the user's at the device's start
    before = checksum(Path(node), 64 << 20)
    workload = f"{{kind: fio, job: {{rw: randread, bs: 4k, size: 16m, filename: {node}}}}}"
    (user["work"] / "my.yaml").write_text(spec_text(user["data"], workload))
    for command in ("plan", "run"):
        done = contio_in(user["work"], command, "my.yaml")
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"job.filename: '{node}' is a device: {ALLOWED}" in done.stderr, done.stderr
    assert checksum(Path(node), 64 << 20) == before
    assert list(user["work"].iterdir()) == [user["work"] / "my.yaml"]


def test_a_relative_filename_runs_in_the_data_directory_and_leaves_nothing(user, engine):
    workload = "{kind: fio, job: {rw: randread, bs: 4k, size: 256k, filename: shared}}"
    (user["work"] / "my.yaml").write_text(spec_text(user["data"], workload))
    before = contents(user["home"] / "mine"), checksum(user["home"] / "precious.db")
    done = contio_in(user["work"], "run", "my.yaml")
    assert done.returncode == 0, done.stderr
    assert list(user["data"].iterdir()) == []  # the backend's root went with the run
    assert (contents(user["home"] / "mine"), checksum(user["home"] / "precious.db")) == before
    [folder] = (user["work"] / "results").iterdir()
    job = next(folder.rglob("load-c1.fio")).read_text()
    assert "filename=shared" in job and f"directory={user['data']}/contio-" in job


def test_a_fifo_as_a_fio_job_file_is_named_as_such(user):
    fifo = user["work"] / "job.fio"
    os.mkfifo(fifo)
    (user["work"] / "my.yaml").write_text(spec_text(user["data"], "{kind: fio, file: job.fio}"))
    done = contio_in(user["work"], "plan", "my.yaml", timeout=60)  # it used to block forever
    assert done.returncode == 2, done.stderr
    assert f"fio job file '{fifo}' is a FIFO (named pipe), not a fio job file" in done.stderr
