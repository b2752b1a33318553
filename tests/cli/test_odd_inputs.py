"""Odd inputs to `contio plan` and `contio run`: no traceback, no hang, nothing made
(issue 29, points C and E). Each exits 2 with one error naming the file or the field
and what it is (a FIFO, a device, a loop), through the real command line, from a
user's own folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from contio_command import contio_in

WORKLOAD_SPEC = "name: odd\nfactors: {workload: [WORKLOAD]}\nproperties: {recordcount: 10}\n"


def refused(done, *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(("error: ", "Usage:")), done.stderr
    assert all(w in done.stderr for w in words), done.stderr


def make_fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def make_loop(path: Path) -> Path:
    path.symlink_to(path.name)  # a link to itself
    return path


SPECS = {
    # A FIFO no one writes to: reading it blocked `plan` forever.
    "fifo": (make_fifo, "cannot read spec: 'my.yaml' is a FIFO (named pipe), not a spec file"),
    "symlink-loop": (make_loop, "cannot read spec: 'my.yaml' is a symbolic link loop"),
}


@pytest.mark.parametrize("kind", list(SPECS))
@pytest.mark.parametrize("command", ["plan", "run"])
def test_a_spec_that_is_not_a_file_is_named_for_what_it_is(tmp_path, kind, command):
    make, message = SPECS[kind]
    make(tmp_path / "my.yaml")
    refused(contio_in(tmp_path, command, "my.yaml", timeout=60), message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.yaml"]


def test_a_device_as_a_spec_is_named_for_what_it_is(tmp_path):
    refused(
        contio_in(tmp_path, "plan", "/dev/null", timeout=60),
        "cannot read spec: '/dev/null' is a character device, not a spec file",
    )


def test_deeply_nested_yaml_is_refused_naming_the_line(tmp_path):
    # PyYAML recursed into it and ended in a RecursionError traceback.
    (tmp_path / "my.yaml").write_text("name: x\ndescription: " + "[" * 3000 + "]" * 3000 + "\n")
    refused(contio_in(tmp_path, "plan", "my.yaml"), "line 2: nested more than 64 levels deep")


WORKLOADS = {
    "symlink-loop": (
        lambda d: make_loop(d / "loop.properties"),
        "./loop.properties",
        "factors.workload[0]: workload file '{d}/loop.properties' is a symbolic link loop",
    ),
    "fifo": (
        lambda d: make_fifo(d / "w.properties"),
        "./w.properties",
        (
            "factors.workload[0]: workload file '{d}/w.properties' is a FIFO (named pipe), not a "
            "text file of key=value lines"
        ),
    ),
    "dev-zero": (
        lambda d: None,
        "/dev/zero",
        "factors.workload[0]: workload file '/dev/zero' is a character device",
    ),
    "fio-dev-zero": (
        lambda d: None,
        "{kind: fio, file: /dev/zero}",
        "factors.workload[0]: file: fio job file '/dev/zero' is a character device, not a fio job",
    ),
}


@pytest.mark.parametrize("kind", list(WORKLOADS))
def test_a_workload_file_that_is_not_a_file_is_named_for_what_it_is(tmp_path, kind):
    make, entry, message = WORKLOADS[kind]
    make(tmp_path)
    (tmp_path / "my.yaml").write_text(WORKLOAD_SPEC.replace("WORKLOAD", entry))
    done = contio_in(tmp_path, "plan", "my.yaml", timeout=60)
    refused(done, message.format(d=tmp_path))


def test_an_empty_mix_is_refused_naming_it(tmp_path):
    # `max()` of an empty sequence, a traceback, when the plan priced its cell.
    (tmp_path / "my.yaml").write_text("name: m\nmixes: {m: []}\nfactors: {mix: [m]}\n")
    refused(contio_in(tmp_path, "plan", "my.yaml"), "mixes.m: needs at least 1 entry, has 0")


@pytest.mark.parametrize("command", ["plan", "run"])
def test_an_empty_profile_name_is_refused_listing_the_profiles(tmp_path, command):
    (tmp_path / "my.yaml").write_text(
        WORKLOAD_SPEC.replace("WORKLOAD", "workloadc")
        + "profiles: {tiny: {properties: {recordcount: 5}}, small: {}}\n"
    )
    done = contio_in(tmp_path, command, "my.yaml", "--profile", "")
    refused(done, "--profile: no profile ''; allowed: tiny, small")
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("root", "message"),
    [
        ("/proc/sys", "--results-dir /proc/sys: /proc/sys is on the kernel's proc file system"),
        ("/sys/kernel/x", "--results-dir /sys/kernel/x: /sys/kernel is on the kernel's sysfs"),
        ("my.yaml/results", "my.yaml is not a folder"),
    ],
)
@pytest.mark.parametrize("command", ["plan", "run"])
def test_a_results_dir_that_cannot_hold_results_is_a_usage_error(
    tmp_path, engine, root, message, command
):
    # `run` used to get as far as making the folder: exit 1, after every other check.
    (tmp_path / "my.yaml").write_text(
        WORKLOAD_SPEC.replace("WORKLOAD", "workloadc") + "stop: {repetitions: 1}\n"
    )
    refused(contio_in(tmp_path, command, "my.yaml", "--results-dir", root), message)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.yaml"]
