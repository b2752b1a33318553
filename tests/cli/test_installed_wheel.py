"""The wheel as a user gets it: built with `maturin build`, installed into a fresh virtual
environment outside the checkout, run from another directory with relative paths and the
default results folder, under the Docker runtime against Redis. Nothing of the checkout
may be needed at run time: its engine is the wheel's static one, in the host and in the
`contio/engine` image alike.

Slow (a release build of the engine when its cache is cold, then a pip install that
takes its dependencies from pip's cache or PyPI): the wheel and its environment are made
once per session.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from contio.images.engine import is_static
from contio.results.index import ResultsIndex

pytestmark = pytest.mark.docker

CHECKOUT = Path(__file__).resolve().parents[2]

SPEC = """\
name: wheel
runtime: {type: docker}
factors: {target: [redis], workload: [workloada], threads: [1]}
stop: {rule: fixed-ops, operations: 500, repetitions: 1}
properties: {recordcount: 100}
"""


def user_environment() -> dict[str, str]:
    """This environment without what points contio at the checkout or another engine."""
    hidden = ("PYTHONPATH", "CONTIO_ENGINE", "CONTIO_SOURCE", "VIRTUAL_ENV")
    return {k: v for k, v in os.environ.items() if k not in hidden}


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The `bin` directory of a fresh venv with the wheel built from this checkout."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is needed to build the wheel")
    root = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "maturin", "build", "--release", "--out", str(root / "dist")],
        cwd=CHECKOUT, capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = (root / "dist").glob("contio-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        cwd=root, env=user_environment(), capture_output=True, text=True, timeout=1800,
        check=False,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr[-3000:]
    yield venv / "bin"


def test_the_wheel_ships_a_static_engine_that_pip_accepts_here(installed):
    engine = installed / "contio-engine"
    assert engine.is_file() and is_static(engine)
    done = subprocess.run([str(engine), "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("contio-engine ")


def test_the_installed_docker_run_works_from_another_directory(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "spec.yaml").write_text(SPEC)
    run = subprocess.run(
        [str(installed / "contio"), "run", "spec.yaml"],
        cwd=elsewhere, env=user_environment(), capture_output=True, text=True, timeout=1800,
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    [folder] = (elsewhere / "results").iterdir()
    index = ResultsIndex.open(folder)
    try:
        assert [c["status"] for c in index.cells()] == ["done"]
    finally:
        index.close()


PROFILED = """\
name: kv
backend: {type: local-dir, path: data}
factors: {target: [lsm], workload: [workloadc], threads: [1]}
stop: {rule: fixed-ops, operations: 2000, repetitions: 2}
properties: {recordcount: 1000}
"""


def test_the_installed_profile_and_advise_work_from_another_directory(installed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "data").mkdir(parents=True)
    (elsewhere / "kv.yaml").write_text(PROFILED)

    def contio(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(installed / "contio"), *args], cwd=elsewhere, env=user_environment(),
            capture_output=True, text=True, timeout=900, check=False,
        )  # fmt: skip

    profiled = contio("profile", "kv.yaml", "--containers", "1,2")
    assert profiled.returncode == 0, profiled.stdout[-2000:] + profiled.stderr[-3000:]
    assert (elsewhere / "kv.profile.json").is_file()
    advised = contio("advise", "kv.profile.json", "kv.profile.json", "--places", "a,b")
    assert advised.returncode == 0, advised.stderr[-3000:]
    assert "recommended (fairness; 4 placements searched)" in advised.stdout
