"""`contio profile` as a user runs it: from a directory of their own, relative paths, the
default output file; the profile says what the copies did and scales from one alone.
Bad input is refused (exit 2) before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contio.profile.schema import load_profile
from contio_command import contio_in

SPEC = """\
name: kv
backend: {type: local-dir, path: data}
factors: {target: [lsm], workload: [workloada], threads: [1]}
stop: {rule: fixed-time, seconds: 3, repetitions: 2}   # long enough to be sampled
properties: {recordcount: 2000}
"""


def test_a_profile_of_one_application_at_one_and_two_copies(tmp_path, engine):
    (tmp_path / "data").mkdir()
    (tmp_path / "kv.yaml").write_text(SPEC)
    done = contio_in(tmp_path, "profile", "kv.yaml", "--containers", "1,2", timeout=600)
    assert done.returncode == 0, done.stderr
    path = tmp_path / "kv.profile.json"  # the default: NAME.profile.json, here
    assert f"profile: {path}" in done.stdout
    profile = load_profile(path)
    assert json.loads(path.read_text())["schema"] == "contio-profile/1"
    assert [p.containers for p in profile.scaling] == [1, 2]
    assert [p.repetitions for p in profile.scaling] == [2, 2]
    solo, pair = profile.scaling
    assert solo.ops_per_sec > 0 and solo.normalized == pytest.approx(1.0)
    assert pair.per_container_ops_per_sec == pytest.approx(pair.ops_per_sec / 2)
    assert pair.normalized == pytest.approx(pair.per_container_ops_per_sec / solo.ops_per_sec)
    # The engine's own CPU, sampled from its process: some of a core per operation.
    assert solo.cpu_cores is not None and solo.cpu_cores > 0
    assert solo.cpu_seconds_per_op == pytest.approx(solo.cpu_cores / solo.ops_per_sec)
    # The data's disk was watched (the temp directory's), whether or not it was busy.
    assert profile.application.disk not in (None, "")
    assert solo.disk_utilization_percent is not None and solo.queue_depth is not None
    assert profile.application.levels["target"] == "lsm"
    assert profile.application.backend["type"] == "local-dir"
    results = Path(profile.results)
    assert results.is_absolute() and results.parent == tmp_path / "results"
    assert (results / "report.html").is_file() and f"report: {results}" in done.stdout
    # The disk's requests were traced in every run phase (empty when none reached it).
    assert not [c for c in profile.caveats if "not traced" in c], profile.caveats
    traced = list(results.glob("raw/*/*/run-requests.json"))
    assert len(traced) == 4 and all("sizes" in json.loads(p.read_text()) for p in traced)
    assert list((tmp_path / "data").iterdir()) == []  # the copies' data released


@pytest.mark.parametrize(
    ("spec", "args", "says"),
    [
        (SPEC.replace("[workloada]", "[workloada, workloadc]"), [], "workload vary"),
        (SPEC, ["--containers", "0,2"], "--containers"),
        (SPEC, ["--containers", "two"], "--containers"),
    ],
)
def test_bad_input_is_refused_before_anything_runs(tmp_path, spec, args, says):
    (tmp_path / "data").mkdir()
    (tmp_path / "kv.yaml").write_text(spec)
    done = contio_in(tmp_path, "profile", "kv.yaml", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "kv.profile.json").exists()


def test_phases_too_short_to_sample_are_said_to_be(tmp_path, engine):
    (tmp_path / "data").mkdir()
    short = SPEC.replace(
        "{rule: fixed-time, seconds: 3, repetitions: 2}",
        "{rule: fixed-ops, operations: 300, repetitions: 1}",
    )
    (tmp_path / "kv.yaml").write_text(short)
    done = contio_in(tmp_path, "profile", "kv.yaml", "--containers", "1", timeout=600)
    assert done.returncode == 0, done.stderr
    profile = load_profile(tmp_path / "kv.profile.json")
    assert profile.solo.cpu_cores is None
    assert any("no CPU samples" in caveat for caveat in profile.caveats)
    assert "caveat: 1 container(s): no CPU samples" in done.stdout
