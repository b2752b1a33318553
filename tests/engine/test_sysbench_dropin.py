"""`contio-engine sysbench` against the real sysbench 1.0.20, side by side.

Each scenario is a sequence of command lines of the kind sysbench's own fileio
cram tests (tests/t/test_fileio.t, cmdline.t of akopytov/sysbench 1.0.20) run:
prepare, the six modes, a missing or bad mode, run before prepare, files of
the wrong size, --verbosity, extra open flags, fsync options, deprecated
aliases, unknown options and commands. Every step runs under Debian's
sysbench in one folder and under the engine in another; their output (stdout
and stderr together, measured numbers masked), exit codes and the test files
left behind (names and sizes) must be the same. Where contio differs on
purpose, the masks below say so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from contio.engine.invocation import find_engine

FILEIO = ["fileio", "--file-num=4", "--file-total-size=32M"]
SMALL = ["fileio", "--file-num=4", "--file-total-size=1M", "--verbosity=2"]
TINY = ["fileio", "--file-total-size=160K", "--file-num=10"]

SCENARIOS: dict[str, list[list[str]]] = {
    "prepare-and-every-mode": [
        [*FILEIO, "prepare"],
        [*FILEIO, "prepare"],  # every file reused: "No bytes written."
        [*FILEIO, "run"],  # no --file-test-mode: FATAL and the options
        *[
            [*FILEIO, "--events=150", f"--file-test-mode={m}", "run"]
            for m in ("rndrw", "rndrd", "seqrd", "rndwr", "seqrewr")
        ],
        [*FILEIO, "--events=150", "--file-test-mode=foo", "run"],
        [*FILEIO, "cleanup"],
        [*FILEIO, "--file-test-mode=rndrw", "--verbosity=2", "run"],  # before prepare
    ],
    "wrong-sizes-at-verbosity-2": [
        [*SMALL, "--file-total-size=1M", "prepare"],
        [*FILEIO, "--verbosity=2", "--file-test-mode=rndwr", "--events=1", "run"],
        [*FILEIO, "--verbosity=2", "--file-num=8", "prepare"],
        [*FILEIO, "--verbosity=2", "--file-test-mode=rndwr", "--events=1", "run"],
        [*FILEIO, "--verbosity=2", "--file-num=8", "cleanup"],
        [*SMALL, "prepare"],
        [*SMALL, "--file-test-mode=seqwr", "--events=1", "run"],  # recreates the files
        [*SMALL, "cleanup"],
    ],
    "report-interval": [
        [*FILEIO, "prepare"],
        # sysbench's `[ 1s ] reads: … latency (ms,95%): …` lines on stdout, while it runs.
        [*FILEIO, "--time=3", "--report-interval=1", "--file-test-mode=rndrw", "run"],
        [
            *FILEIO,
            "--time=2",
            "--report-interval=1",
            "--percentile=99",
            "--file-test-mode=rndrd",
            "run",
        ],
        [*FILEIO, "cleanup"],
    ],
    "odd-block-size": [
        [*SMALL, "--file-num=128", "--file-block-size=4097", "--events=2", "prepare"],
        [
            *SMALL,
            "--file-num=128",
            "--file-block-size=4097",
            "--events=2",
            "--file-test-mode=seqrd",
            "run",
        ],
        [
            *SMALL,
            "--file-num=128",
            "--file-block-size=4097",
            "--events=2",
            "--file-test-mode=rndrd",
            "run",
        ],
        [*SMALL, "--file-num=128", "cleanup"],
    ],
    "extra-flags": [
        [
            "fileio",
            "--file-total-size=16K",
            "--file-num=1",
            f"--file-extra-flags={flags}",
            "prepare",
        ]
        for flags in ("", "sync", "dsync", "dsync,sync")
    ],
    "fsync-options-and-aliases": [
        [*TINY, "prepare"],
        [
            *TINY,
            "--file-test-mode=seqwr",
            "--file-fsync-freq=0",
            "--events=0",
            "--time=1",
            "run",
        ],
        [
            *TINY,
            "--file-test-mode=rndwr",
            "--file-fsync-all",
            "--events=5",
            "run",
        ],
        [
            *TINY,
            "--file-test-mode=rndrw",
            "--max-requests=20",
            "--num-threads=2",
            "--rand-seed=5",
            "run",
        ],
        [
            *TINY,
            "--file-test-mode=rndrw",
            "--events=20",
            "--percentile=0",
            "run",
        ],
        [
            *TINY,
            "--file-test-mode=rndrw",
            "--events=20",
            "--histogram",
            "run",
        ],
        [
            *TINY,
            "--file-test-mode=rndrw",
            "--events=20",
            "--percentile=0",
            "--histogram",
            "run",
        ],
        [
            "--threads=2",
            *TINY,
            "--file-test-mode=rndrd",
            "--events=20",
            "run",
        ],
        [*TINY, "cleanup"],
    ],
    "command-line-mistakes": [
        ["foo", "bar"],
        ["foo", "bar", "baz"],
        ["fileio"],
        ["fileio", "--invalid-option", "prepare"],
        ["fileio", "bogus"],
        ["fileio", "--threads=0", "--file-test-mode=seqrd", "run"],
        ["fileio", "--file-num=0", "prepare"],
        ["fileio", "--file-total-size=0", "prepare"],
    ],
}


def _mask(text: str) -> str:
    """What may differ between two runs of the same command (and, on purpose,
    between sysbench and contio) becomes a placeholder."""
    text = re.sub(r"^sysbench \S+ \(.*\)$", "<banner>", text, flags=re.MULTILINE)
    # Histogram rows: which buckets fill is timing.
    text = re.sub(r"^ +\d+\.\d+ \|\**\s+\d+\n", "", text, flags=re.MULTILINE)
    # fileio help: contio describes the options in its own words.
    text = re.sub(r"^(  --[\w-]+(?:=\S+|\[=on\|off\]))\s+.*$", r"\1", text, flags=re.MULTILINE)
    # A number and the spaces that align it: a longer maximum shifts its column.
    text = re.sub(r" *\d+\.\d+", " N", text)
    # Intermediate reports: sysbench itself prints the last one or not, as its timer
    # and the end race; their form is compared, not their number.
    report = r"\[ \d+s \] reads: N MiB/s writes: N MiB/s fsyncs: N/s latency \(ms,\d+%\): N\n"
    text = re.sub(f"(?:{report})+", "<intermediate reports>\n", text)
    return re.sub(r"(bytes written in|IOPS=|events:\s+)\s*\d+", r"\1 N", text)


def _files(folder: Path) -> list[tuple[str, int]]:
    return sorted((p.name, p.stat().st_size) for p in folder.iterdir())


def _run(program: list[str], args: list[str], folder: Path) -> tuple[int, str]:
    done = subprocess.run(
        [*program, *args],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    return done.returncode, _mask(done.stdout)


@pytest.fixture(scope="module")
def real_sysbench() -> str:
    found = shutil.which("sysbench")
    assert found, "the real sysbench is missing: scripts/setup-system.sh installs Debian's sysbench"
    version = subprocess.run(
        [found, "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert version.startswith("sysbench 1.0.20"), version
    return found


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_each_step_prints_exits_and_leaves_files_as_sysbench(scenario, real_sysbench, tmp_path):
    theirs, ours = tmp_path / "sysbench", tmp_path / "contio"
    theirs.mkdir()
    ours.mkdir()
    engine = [str(find_engine()), "sysbench"]
    for args in SCENARIOS[scenario]:
        want = _run([real_sysbench], args, theirs)
        got = _run(engine, args, ours)
        step = " ".join(args)
        assert got[0] == want[0], f"{step}: exit {got[0]}, sysbench {want[0]}\n{got[1]}"
        assert got[1] == want[1], f"{step}: output differs"
        assert _files(ours) == _files(theirs), f"{step}: files differ"


def test_validate_says_it_does_not_check_checksums(tmp_path):
    """`--validate` is accepted and printed as sysbench prints it, with a
    warning that contio does not compute sysbench's block checksums."""
    engine = [str(find_engine()), "sysbench"]
    args = ["fileio", "--file-num=2", "--file-total-size=1M"]
    assert _run(engine, [*args, "prepare"], tmp_path)[0] == 0
    code, text = _run(
        engine, [*args, "--file-test-mode=rndrd", "--events=5", "--validate", "run"], tmp_path
    )
    assert code == 0
    assert "Validation checks: on." in text and "Using checksums validation." in text
    assert "WARNING: --validate: contio-engine does not write or check" in text


def test_json_keeps_contios_machine_interface(tmp_path):
    """With contio's -json, refused input exits 2 with the reason on stderr."""
    done = subprocess.run(
        [
            str(find_engine()),
            "sysbench",
            "fileio",
            "--file-test-mode=foo",
            "run",
            "-json",
            str(tmp_path / "r.json"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "FATAL: Invalid IO operations mode: foo." in done.stderr
    assert not (tmp_path / "r.json").exists()
