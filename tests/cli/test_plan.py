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
