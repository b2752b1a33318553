"""The ready-made specs in experiments/: every profile is valid, and each `tiny` profile
runs end to end and produces its statistics (NFS and block I/O group cells are skipped
with the reason where this host cannot provide them)."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from contio.backends import nfs_support
from contio.matrix import expand
from contio.spec import read_spec_file

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
READY = ["hyperconverged", "volume-vs-nfs", "container-scaling", "blkio-isolation"]


def profiles_of(name: str) -> list[str]:
    return list(yaml.safe_load((EXPERIMENTS / f"{name}.yaml").read_text())["profiles"])


@pytest.mark.parametrize("name", READY)
def test_every_profile_is_valid_and_has_cells(name):
    assert {"tiny", "small", "paper"} <= set(profiles_of(name))
    for profile in profiles_of(name):
        spec, _ = read_spec_file(EXPERIMENTS / f"{name}.yaml", profile)
        assert expand(spec), f"{name} --profile {profile} has no cells"


@pytest.mark.parametrize("name", READY)
def test_the_tiny_profile_produces_its_statistics(tmp_path, engine, name):
    done = subprocess.run(
        [sys.executable, "-m", "contio", "run", EXPERIMENTS / f"{name}.yaml", "--profile",
         "tiny", "--results-dir", tmp_path],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [folder] = list(tmp_path.iterdir())
    with (folder / "summary.csv").open(newline="") as src:
        summary = list(csv.DictReader(src))
    ran = [row for row in summary if row["status"] == "done"]
    assert ran, "no cell of the tiny profile ran"
    for row in ran:
        assert int(row["repetitions"]) >= 2
        mean, half = (
            float(row["throughput_ops_per_sec_mean"]),
            float(row["throughput_ci95_half_width"]),
        )
        assert mean > 0 and math.isfinite(half) and float(row["throughput_ci95_low"]) < mean
    for row in summary:
        assert row["status"] in ("done", "skipped")
        if row["status"] == "skipped":
            assert row["reason"]
        if row["backend"].startswith("nfs"):
            client = nfs_support.probe("client")
            if client.available:
                continue
            assert row["status"] == "skipped" and client.reason in row["reason"]
