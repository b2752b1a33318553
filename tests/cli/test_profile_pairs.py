"""`contio profile --pairs` as a user runs it: two tiny fio applications profiled, then
run as a pair on their device and alone; the calibration file says what was measured
and fitted, and `contio advise --calibration` takes it. Bad input is refused (exit 2)
before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contio.profile.calibration import load_calibration
from contio.profile.schema import Application, Profile, ScalingPoint
from contio_command import contio_in

WRITER = """\
name: writer
backend: {type: local-dir, path: data}
factors:
  workload: [{kind: fio, name: seqwrite, job: {rw: write, bs: 1m, size: 64m}}]
stop: {rule: fixed-time, seconds: 2, repetitions: 2}
"""
READER = """\
name: reader
backend: {type: local-dir, path: data}
factors:
  workload: [{kind: fio, name: randread, job: {rw: randread, bs: 4k, direct: 1, size: 64m}}]
stop: {rule: fixed-time, seconds: 2, repetitions: 2}
"""


def test_a_pair_of_profiled_applications_calibrates_the_model(tmp_path, engine):
    (tmp_path / "data").mkdir()
    for name, text in (("writer", WRITER), ("reader", READER)):
        (tmp_path / f"{name}.yaml").write_text(text)
        done = contio_in(tmp_path, "profile", f"{name}.yaml", "--containers", "1", timeout=600)
        assert done.returncode == 0, done.stderr
    done = contio_in(
        tmp_path, "profile", "--pairs", "writer.profile.json", "reader.profile.json",
        "-o", "cal/calibration.json", timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    path = tmp_path / "cal" / "calibration.json"
    assert f"calibration: {path}" in done.stdout
    assert "median absolute error" in done.stdout
    # One pair: two observations for two constants, and the output says so.
    assert "fitted on 2 observations" in done.stdout
    assert "not yet well determined" in done.stdout
    calibration = load_calibration(path)
    assert json.loads(path.read_text())["schema"] == "contio-calibration/1"
    assert [p.label for p in calibration.pairs] == ["writer+reader"]
    members = calibration.pairs[0].members
    assert [m.name for m in members] == ["writer", "reader"]
    for m in members:
        assert m.measured is not None and 0 < m.measured <= 2
        assert 0 < m.predicted_before <= 1 and 0 < m.predicted_after <= 1
    assert calibration.observations == 2 and not calibration.well_determined
    error = calibration.median_absolute_error
    assert error.after <= error.before + 1e-12
    assert calibration.constants.after.model_error == pytest.approx(max(0.02, error.after))
    results = Path(calibration.results)
    assert results.is_dir() and results.parent == tmp_path / "results"
    assert [p.name for p in calibration.profiles] == ["writer", "reader"]
    assert calibration.backend == {"type": "local-dir", "path": str(tmp_path / "data")}

    advised = contio_in(
        tmp_path, "advise", "writer.profile.json", "reader.profile.json", "--places", "d1,d2",
        "--calibration", "cal/calibration.json",
    )  # fmt: skip
    assert advised.returncode == 0, advised.stderr
    assert "cal/calibration.json" in advised.stdout
    refused = contio_in(
        tmp_path, "advise", "writer.profile.json", "reader.profile.json", "--places", "d1,d2",
        "--calibration", "writer.profile.json",
    )  # fmt: skip
    assert refused.returncode == 2 and "writer.profile.json" in refused.stderr


def _profile(name: str, backend: dict, spec: dict | None) -> str:
    point = ScalingPoint(
        containers=1, repetitions=2, ops_per_sec=100.0, ops_per_sec_half_width=1.0,
        per_container_ops_per_sec=100.0, normalized=1.0, read_bytes_per_sec=None,
        write_bytes_per_sec=None, read_iops=None, write_iops=None, bytes_per_io=4096.0,
        merged_percent=0.0, disk_utilization_percent=50.0, queue_depth=1.0, cpu_cores=0.1,
        cpu_seconds_per_op=0.001, host_cpu_percent=None,
    )  # fmt: skip
    made = Profile(
        application=Application(name=name, levels={}, backend=backend, disk="vda", spec=spec),
        host={"cores": 2}, measured="2026-11-29T00:00:00Z", results="/r", scaling=[point],
        saturation_containers=None, valley=None,
    )  # fmt: skip
    return json.dumps(made.model_dump(mode="json", by_alias=True))


LOCAL = {"name": "local-dir", "type": "local-dir", "path": "data"}
SPEC = {"name": "x", "backend": {"type": "local-dir", "path": "data"}}


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({"a.json": (LOCAL, SPEC)}, "needs two or more profiles"),
        (
            {"a.json": (LOCAL, SPEC), "b.json": ({**LOCAL, "path": "other"}, SPEC)},
            "differ in `path` ('data' against 'other'): they were profiled on different backends",
        ),
        ({"a.json": (LOCAL, SPEC), "b.json": (LOCAL, None)}, "b.json: this profile keeps no spec"),
    ],
)
def test_bad_input_is_refused_before_anything_runs(tmp_path, files, says):
    (tmp_path / "data").mkdir()
    for file, (backend, spec) in files.items():
        (tmp_path / file).write_text(_profile(file.removesuffix(".json"), backend, spec))
    done = contio_in(tmp_path, "profile", "--pairs", *files)
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "calibration.json").exists()


def test_a_profile_given_twice_and_options_of_profiling_are_refused(tmp_path):
    (tmp_path / "a.json").write_text(_profile("a", LOCAL, SPEC))
    twice = contio_in(tmp_path, "profile", "--pairs", "a.json", "a.json")
    assert twice.returncode == 2 and "a.json given twice" in twice.stderr
    (tmp_path / "b.json").write_text(_profile("b", LOCAL, SPEC))
    counts = contio_in(tmp_path, "profile", "--pairs", "a.json", "b.json", "--containers", "1")
    assert counts.returncode == 2 and "--containers: not with --pairs" in counts.stderr
    several = contio_in(tmp_path, "profile", "a.json", "b.json")
    assert several.returncode == 2 and "need --pairs" in several.stderr


def test_profiles_of_one_file_name_in_two_folders_are_two_applications():
    from contio.profile.together import member_names

    paths = [Path("a/writer.profile.json"), Path("b/writer.profile.json"), Path("r.json")]
    assert member_names(paths) == ["writer", "writer-2", "r"]  # not `writer#2`, a copy of one
    # The same file again is a copy of its application (how `contio advise` takes copies).
    again = [
        Path("a/writer.profile.json"),
        Path("b/writer.profile.json"),
        Path("a/writer.profile.json"),
    ]
    assert member_names(again) == ["writer", "writer-2", "writer#2"]
