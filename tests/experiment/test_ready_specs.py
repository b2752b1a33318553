"""The ready-made specs in experiments/: every profile is valid, and each `tiny` profile
runs end to end and produces its statistics (NFS and block I/O group cells are skipped
with the reason where this host cannot provide them)."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from contio.backends import nfs_support
from contio.experiment.load import read_spec_file
from contio.experiment.matrix import expand
from contio.results.folder import load
from contio.stats.fairness import jain_index
from contio.stats.ttest import paired_t_test

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
MIB = 1024 * 1024
READY = ["hyperconverged", "volume-vs-nfs", "container-scaling", "blkio-isolation"]
# io-middleware's tiny profile needs the Gluster cluster: it runs in
# tests/backends/test_gluster_middleware.py; its profiles are checked here.
ALL_SPECS = [*READY, "io-middleware"]


def profiles_of(name: str) -> list[str]:
    return list(yaml.safe_load((EXPERIMENTS / f"{name}.yaml").read_text())["profiles"])


@pytest.mark.parametrize("name", ALL_SPECS)
def test_every_profile_is_valid_and_has_cells(name):
    assert {"tiny", "small", "paper"} <= set(profiles_of(name))
    for profile in profiles_of(name):
        spec, _ = read_spec_file(EXPERIMENTS / f"{name}.yaml", profile)
        assert expand(spec), f"{name} --profile {profile} has no cells"


_TINY_RUNS: dict[str, Path] = {}


def run_tiny(name: str, root: Path) -> Path:
    """The results folder of `name`'s tiny profile, run once per test session."""
    if name not in _TINY_RUNS:
        out = root / name
        done = subprocess.run(
            [sys.executable, "-m", "contio", "run", EXPERIMENTS / f"{name}.yaml", "--profile",
             "tiny", "--results-dir", out],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        [_TINY_RUNS[name]] = list(out.iterdir())
    return _TINY_RUNS[name]


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("tiny")


@pytest.mark.parametrize("name", READY)
def test_the_tiny_profile_produces_its_statistics(tiny_root, engine, name):
    folder = run_tiny(name, tiny_root)
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


def test_blkio_isolation_throttles_one_group_and_records_the_controls(tiny_root, engine):
    """Paper 004's throttle and weight isolation, for real: the group limited to 10 MB/s gets
    about that (direct writes to a loop device), the three unlimited groups far more;
    weights 50/25/25 divide the reads in that order; every run row says which cgroup
    mechanism applied what, with the buffered-write note."""
    runs = load(run_tiny("blkio-isolation", tiny_root))
    throttled = runs[runs["io_controls"] == "throttle-10"]
    limit_mb = 10.0
    first = throttled[throttled["container"] == 1]["written_mib_per_sec"] * MIB / 1e6
    others = throttled[throttled["container"] > 1]["written_mib_per_sec"] * MIB / 1e6
    # Generous: the kernel lets the first slice through at once in a 3 s run.
    assert 0.5 * limit_mb < first.mean() < 2.0 * limit_mb, first.tolist()
    assert others.min() > 2.5 * first.mean(), (first.tolist(), others.tolist())
    record = json.loads(throttled[throttled["container"] == 1]["io_control"].iloc[0])
    assert record["limits"]["write_bps"] == 10_000_000
    assert record["mechanism"].startswith("cgroup-")
    assert any("buffered writes" in note for note in record["notes"])
    unlimited = json.loads(throttled[throttled["container"] == 2]["io_control"].iloc[0])
    assert unlimited["cgroup"] != record["cgroup"] and "controls" not in unlimited
    assert not Path(record["cgroup"]).exists(), "the run left its cgroup behind"
    # Cells without groups ran outside any contio cgroup.
    assert (runs[runs["io_controls"] == "none"]["io_control"] == "").all()
    weighted = runs[runs["io_controls"] == "weights-50-25-25"]
    weights = {
        row.container: json.loads(row.io_control)["limits"]["weight"]
        for row in weighted.itertuples()
    }
    assert weights == {1: 50, 2: 25, 3: 25}
    assert {json.loads(r)["scheduler"] for r in weighted["io_control"]} == {"bfq"}
    # Paper 004's weight isolation: over the repetitions the weight-50 group reads the most,
    # about half of all bytes (measured here 0.49-0.52 in each of six repetitions).
    mib = weighted.groupby("container")["read_mib_per_sec"].sum()
    share = mib[1] / mib.sum()
    assert mib[1] > mib[2] and mib[1] > mib[3], mib.tolist()
    assert 0.38 < share < 0.65, mib.tolist()


def test_volume_vs_nfs_runs_sysbench_rndrw_and_gives_paired_t_tests(tiny_root, engine):
    """Paper 002's workload for real: sysbench rndrw keeps its 1.5 reads per write, and the
    paired t-test of per-container reads/s, 1 against 2 containers, can be computed."""
    runs = load(run_tiny("volume-vs-nfs", tiny_root))
    volume = runs[runs["backend"] == "volume"]
    assert set(volume["workload"]) == {"rndrw"} and (volume["status"] == "ok").all()
    ratio = volume["reads_per_sec"] / volume["writes_per_sec"]
    assert ratio.between(1.45, 1.55).all(), ratio.tolist()  # --file-rw-ratio 1.5
    assert (volume["read_mib_per_sec"] > 0).all() and (volume["written_mib_per_sec"] > 0).all()
    one = volume[volume["containers"] == 1].sort_values("repetition")["reads_per_sec"]
    two = volume[volume["containers"] == 2].groupby("repetition")["reads_per_sec"].mean()
    result = paired_t_test(list(one), list(two), "1 container", "2 containers")
    assert result.n_a == 3 and math.isfinite(result.t) and 0 <= result.p <= 1


def test_container_scaling_runs_fio_4k_buffered_random_reads(tiny_root, engine):
    """Paper 003's fio part for real: 4 KiB random reads, so MiB/s is IOPS × 4 KiB, no writes
    in the run, and Jain's fairness over the containers of a cell is computable."""
    runs = load(run_tiny("container-scaling", tiny_root))
    fio = runs[runs["mix"] == "randread-4k"]
    assert len(fio) == 3 * (1 + 2) and (fio["status"] == "ok").all()
    assert (fio["written_mib_per_sec"] == 0).all()
    expected = fio["iops"] * 4096 / MIB
    assert ((fio["read_mib_per_sec"] - expected).abs() <= 0.01 * expected).all()
    pair = fio[fio["containers"] == 2].groupby("repetition")["iops"].apply(list)
    for values in pair:
        assert 0.5 <= jain_index(values) <= 1.0


PLACEMENT = EXPERIMENTS / "placement"


def test_the_placement_specs_are_one_application_each_with_shared_settings():
    from contio.profile.application import profiling_spec
    from contio.profile.places import capacities, read_places
    from contio.profile.together import SHARED_SETTINGS

    settings = []
    for path in sorted(PLACEMENT.glob("*.yaml")):
        if path.name == "places.yaml":
            continue
        spec, _ = read_spec_file(path)
        profiling_spec(spec, [1, 2], str(path))  # refuses anything but one application
        dumped = spec.model_dump(mode="json")
        settings.append({k: dumped[k] for k in SHARED_SETTINGS})
    assert len(settings) == 4 and all(s == settings[0] for s in settings)
    places = read_places(PLACEMENT / "places.yaml")
    assert capacities(list(places), places) == {"disk-a": 4 * 1024**3, "disk-b": 4 * 1024**3}
