"""Numbers a spec, `contio advise` and a backend take are finite, and option errors are
in contio's words: `.inf`/`.nan` (YAML's infinity and not-a-number, which pydantic takes
by default) are refused naming the field; `advise --cores inf` or `--cores -1` no longer
predict throughputs of -5 × alone; a backend's or an SSH inventory's bad value names the
option and what is allowed, not pydantic's "Input should be…", and `plan` reads the
inventory (`run` did, after making its results folder)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from contio_command import contio_in

sys.path.insert(0, str(Path(__file__).parents[1] / "profile"))
from profiles import profile

BASE = (
    "name: n\ntargets: [null]\nworkloads: [workloada]\nthreads: [1]\nrepetitions: 1\n"
    "properties: {recordcount: 20, operationcount: 100}\n"
)
LOCAL = "backend: {type: local-dir, path: ./data}\n"
SPECS = {
    # pydantic took .inf, and the plan's arithmetic ended in an OverflowError traceback.
    "warmup": (LOCAL + "warmup_seconds: .inf\n", "warmup_seconds: inf is not a finite number"),
    "property": (
        LOCAL + "factors: {properties: {fieldlength: [.nan]}}\n",
        "factors.properties.fieldlength[0]: nan is not a finite number",
    ),
    "backend": (
        "backend: {type: gluster, nodes: many}\n",
        "backend.nodes: 'many' is not an integer (a whole number such as 4)",
    ),
    "inventory": (
        "backend: {type: gluster, inventory: ./hosts.yaml}\n",
        "backend.inventory: {home}/hosts.yaml: nodes: needs at least 3 entries, has 1",
    ),
}


@pytest.mark.parametrize("case", list(SPECS))
def test_plan_refuses_naming_the_field_in_contio_words(tmp_path, case):
    text, says = SPECS[case]
    (tmp_path / "data").mkdir()
    (tmp_path / "hosts.yaml").write_text("nodes:\n  - {host: gs1, bricks: [/data/b]}\n")
    (tmp_path / "spec.yaml").write_text(BASE + text)
    done = contio_in(tmp_path, "plan", "spec.yaml")
    assert done.returncode == 2, done.stdout + done.stderr
    assert says.format(home=tmp_path) in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "Input should" not in done.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--cores", "inf"], "--cores: 'inf' is not a positive number"),
        (["--cores", "-1"], "--cores: '-1' is not a positive number"),
        (["--objective", "weighted", "--weight", "w=inf"], "--weight: 'inf' is not a positive"),
        (["--cores", "2", "nan.profile.json"], "scaling.0.ops_per_sec: nan is not a finite number"),
    ],
)
def test_advise_takes_finite_numbers_only(tmp_path, args, says):
    profile("w", 55.0).dump(tmp_path / "w.profile.json")
    text = (tmp_path / "w.profile.json").read_text()
    (tmp_path / "nan.profile.json").write_text(
        text.replace('"ops_per_sec": 1000.0', '"ops_per_sec": NaN')
    )
    done = contio_in(tmp_path, "advise", "w.profile.json", *args, "--places", "sdb,sdc")
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr, done.stderr
