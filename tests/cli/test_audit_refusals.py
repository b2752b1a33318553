"""Odd inputs of a second audit (issue 29), through the real command line: each is
refused with exit code 2 and one clear message, before anything is made. They ended in
a traceback (a name too long), a late failure (files larger than the backend, a fio job
file holding only `[global]`), exit code 1, or a results folder in the working folder
(`--results-dir ''`)."""

from __future__ import annotations

import pytest

from contio_command import contio_in

YCSB = (
    "name: a\ntargets: [null]\nworkloads: [workloada]\nthreads: [1]\nrepetitions: 1\n"
    "backend: {type: local-dir, path: ./data}\n"
    "properties: {recordcount: 20, operationcount: 100}\n"
)
FIO = "name: a\nbackend: {type: local-dir, path: ./data}\nfactors: {workload: [WORKLOAD]}\n"
LONG = "x" * 300
CASES = {
    "global-only-job-file": (
        ["run", "spec.yaml"],
        FIO.replace("WORKLOAD", "{kind: fio, file: ./g.fio}"),
        "fio job file '{home}/g.fio' has only a [global] section: it defines no job",
    ),
    "files-larger-than-the-backend": (
        ["run", "spec.yaml"],
        FIO.replace("WORKLOAD", "{kind: fio, name: r, job: {rw: read, size: 100000g}}"),
        "cell 1's load lays out 102,400,000 MiB of files, more than backend 'local-dir' can hold",
    ),
    "empty-results-dir": (
        ["run", "spec.yaml", "--results-dir", ""],
        YCSB,
        "Invalid value for '--results-dir': '' names no folder",
    ),
    "results-dir-name-too-long": (
        ["run", "spec.yaml", "--results-dir", LONG],
        YCSB,
        "a name in it is 300 bytes long; at most 255",
    ),
    "backend-path-name-too-long": (
        ["plan", "spec.yaml"],
        YCSB.replace("path: ./data", f"path: ./{LONG}"),
        "characters)': a name (between slashes) is at most 255 bytes, a path at most 4096",
    ),
    "stop-seconds-not-whole": (
        ["plan", "spec.yaml"],
        YCSB.replace(", operationcount: 100", "") + "stop: {rule: fixed-time, seconds: 1e6}\n",
        "stop.seconds: 1e+06 seconds is more than 604800 (a week)",
    ),
    "calibrate-a-device": (
        ["qos", "calibrate", "--disk", "/dev/null"],
        YCSB,
        "Invalid value for '--disk': '/dev/null' is not a directory",
    ),
    "calibrate-odd-size": (
        ["qos", "calibrate", "--disk", ".", "--bytes", "3000000"],
        YCSB,
        "'--bytes': 3000000 is not a multiple of 1048576",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_odd_input_is_refused_before_anything_is_made(tmp_path, case):
    args, spec, says = CASES[case]
    (tmp_path / "data").mkdir()
    (tmp_path / "spec.yaml").write_text(spec)
    (tmp_path / "g.fio").write_text("[global]\nrw=read\nbs=4k\nsize=1m\n")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    done = contio_in(tmp_path, *args, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert says.format(home=tmp_path) in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
