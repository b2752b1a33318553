"""`contio plan`: cells, provisioning and duration, and nothing run or made."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def contio(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contio", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_plan_prints_cells_provisioning_and_duration_and_runs_nothing(tmp_path):
    spec = REPO / "experiments" / "volume-vs-nfs.yaml"
    done = contio("plan", spec, "--profile", "tiny", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "experiment volume-vs-nfs (profile tiny): 4 cells, stop rule fixed-time" in out
    assert "backend volume: local-dir" in out
    assert "backend nfs-sync: nfs (export_path=/var/lib/contio/nfs-export" in out
    assert "estimated duration:" in out
    assert list(tmp_path.iterdir()) == []  # no results folder, nothing provisioned


def test_plan_rejects_a_bad_spec_with_the_field_path_and_exit_2(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text(
        "name: bad\nbackends: {a: {type: local-dir}}\n"
        "factors: {backend: [a, b], target: [nul], workload: [workloada]}\n"
    )
    done = contio("plan", spec)
    assert done.returncode == 2
    assert "factors.target[0]: 'nul' is not a known target; allowed: null" in done.stderr
    spec.write_text(spec.read_text().replace("[nul]", "[null]"))
    done = contio("plan", spec)
    assert done.returncode == 2
    assert "factors.backend[1]: 'b' is not defined; allowed: a" in done.stderr


def test_plan_rejects_an_unknown_profile(tmp_path):
    done = contio("plan", REPO / "experiments" / "hyperconverged.yaml", "--profile", "huge")
    assert done.returncode == 2
    assert "--profile: no profile 'huge'; allowed: paper, small, tiny" in done.stderr


def test_plan_refuses_what_the_engine_refuses_before_anything_runs(tmp_path):
    # The same engine check as `contio run`: a misspelt property, and fio (which stops
    # by time or size) under an operation-count rule, each exit 2 naming the cell.
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        "name: typo\nfactors: {target: [null], workload: [workloada]}\n"
        "properties: {readproportoin: 0.5}\n"
    )
    done = contio("plan", typo, cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown property 'readproportoin' (did you mean 'readproportion'?)" in done.stderr
    fio = tmp_path / "fio.yaml"
    fio.write_text(
        "name: fio-ops\nfactors: {workload: [{kind: fio, name: w, job: {rw: write, size: 1m}}]}\n"
        "stop: {rule: fixed-ops, operations: 1000, repetitions: 2}\n"
    )
    done = contio("plan", fio, cwd=tmp_path)
    assert done.returncode == 2
    assert "cell 1 (" in done.stderr and "use stop rule fixed-time" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fio.yaml", "typo.yaml"]


def test_drop_caches_is_left_to_run_which_refuses_it_without_root(tmp_path, monkeypatch):
    # A non-root user is simulated in-process (the tests run as root).
    from click.testing import CliRunner

    from contio.cli import _register, cli
    from contio.errors import UsageError

    _register()  # as `contio` (contio.cli.main) does; main maps UsageError to exit 2

    spec = tmp_path / "drop.yaml"
    spec.write_text(
        "name: drop\nfactors: {target: [null], workload: [workloadc]}\ndrop_caches: true\n"
        "properties: {recordcount: 10, operationcount: 10}\n"
    )
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    planned = CliRunner().invoke(cli, ["plan", str(spec)])
    assert planned.exit_code == 0, planned.output
    assert "experiment drop: 1 cells" in planned.output
    ran = CliRunner().invoke(cli, ["run", str(spec), "--results-dir", str(tmp_path / "out")])
    assert isinstance(ran.exception, UsageError)
    assert "drop_caches: needs root" in str(ran.exception)
    assert not (tmp_path / "out").exists()  # refused before a results folder was made
