"""`contio advise --validate` as a user runs it: two applications profiled in their own
directory, the recommended and the naive placements run on two places given by a
relative `--backends` file, each member measured against its application alone on its
place, and the comparison kept in the results folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contio_command import contio_in

APPLICATION = """\
name: {name}
backend: {{type: local-dir, path: data}}
factors:
  workload: [{{kind: fio, name: {name}, job: {job}}}]
stop: {{rule: fixed-time, seconds: 2, repetitions: 2}}
"""
JOBS = {
    "writer": "{rw: write, bs: 1m, size: 32m}",
    "reader": "{rw: randread, bs: 4k, direct: 1, size: 32m}",
}
PLACES = "a: {type: local-dir, path: a}\nb: {type: local-dir, path: b}\n"
MIX = ["writer.profile.json", "writer.profile.json", "reader.profile.json", "reader.profile.json"]


@pytest.fixture(scope="module")
def profiled(tmp_path_factory, engine) -> Path:
    """A user's directory with a writer's and a reader's profiles and two places."""
    home = tmp_path_factory.mktemp("advise-validate")
    for name in ("data", "a", "b"):
        (home / name).mkdir()
    for name, job in JOBS.items():
        (home / f"{name}.yaml").write_text(APPLICATION.format(name=name, job=job))
        done = contio_in(home, "profile", f"{name}.yaml", "--containers", "1,2", timeout=600)
        assert done.returncode == 0, done.stderr
    (home / "places.yaml").write_text(PLACES)
    return home


def test_both_placements_run_and_are_measured_against_each_alone(profiled):
    done = contio_in(profiled, "advise", *MIX, "--backends", "places.yaml", "--validate",
                     timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr
    folder = Path(done.stdout.split("results: ")[-1].splitlines()[0])
    assert folder.parent == profiled / "results"  # --results-dir's default, relative
    found = json.loads((folder / "validation.json").read_text())
    placements = {p["label"]: p for p in found["placements"]}
    assert "recommended" in placements
    for placement in placements.values():
        assert {m["place"] for m in placement["members"]} <= {"a", "b"}
        for member in placement["members"]:
            assert member["measured"] is not None and 0 < member["measured"] < 3, member
            assert member["error"] == pytest.approx(member["measured"] - member["predicted"])
    # Every application ran alone on every place a placement gave it.
    cells = json.loads((folder / "spec.json").read_text())["factors"]["mix"]
    used = {(m["name"].split("#")[0], m["place"]) for p in placements.values()
            for m in p["members"]}  # fmt: skip
    assert {f"alone-{app}-on-{place}" for app, place in used} <= set(cells)
    assert "median absolute prediction error" in done.stdout
    assert "places a, b are on one disk" in done.stdout  # both directories: the temp disk
    assert "warning" not in done.stderr, done.stderr[-500:]  # e.g. no report written
    report = (folder / "report.html").read_text()
    assert 'id="placement"' in report and "Placement advice: predicted against measured" in report
    assert list((profiled / "a").iterdir()) == [] and list((profiled / "b").iterdir()) == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--places", "a,b", "--validate"], "--validate: needs --backends FILE"),
        (["--backends", "places.yaml", "--places", "a,c"], "--places: c not defined in --backends"),
        (["--backends", "missing.yaml"], "--backends: cannot read 'missing.yaml'"),
        (["--backends", "writer.yaml"], "--backends: name: a backend definition with a `type`"),
    ],
)
def test_bad_places_are_refused_before_anything_runs(profiled, args, says):
    done = contio_in(profiled, "advise", *MIX, *args)
    assert done.returncode == 2, done.stdout
    assert says in done.stderr
