"""What a run concludes, the same everywhere: the terminal at the end of `contio run`,
`contio results`, summary.csv and the HTML report — on real runs of the engine (null
target for the mixes, the embedded lsm and btree engines for the targets)."""

from __future__ import annotations

import csv
import html
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contio.report.assemble import build_report
from contio.report.conclusions import headline
from contio.report.experiment import Experiment
from contio.report.scaling_sections import mix_results
from contio.stats.sentence import degradation_change

MIX_SPEC = """\
name: mixes
backends: {{dir: {{type: local-dir, path: {data}}}}}
mixes:
  read: [{{workload: workloadc, target: null}}]
  write: [{{workload: heavy-update, target: null}}]
  read+write: [{{workload: workloadc, target: null}}, {{workload: heavy-update, target: null}}]
factors: {{mix: [read, write, read+write], containers: [1], threads: [1]}}
stop: {{rule: fixed-time, seconds: 1, repetitions: 3}}
load: {{threads: 1}}
properties: {{recordcount: 200}}
"""

TARGETS_SPEC = """\
name: targets
backend: {{type: local-dir, path: {data}}}
targets: [lsm, btree]
workloads: [workloada]
threads: [1, 2]
repetitions: 3
properties: {{recordcount: 500, operationcount: 100000000, maxexecutiontime: 1}}
"""


def run(tmp_path: Path, spec_text: str) -> tuple[Path, str]:
    """Run the spec with `contio run`; the results folder and what it printed."""
    data = tmp_path / "data"
    data.mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text.format(data=data))
    done = subprocess.run(
        [sys.executable, "-m", "contio", "run", str(spec), "--results-dir", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "COLUMNS": "250"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [folder] = list((tmp_path / "r").iterdir())
    return folder, done.stdout


def results(folder: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "contio", "results", str(folder)],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "COLUMNS": "250"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_each_members_degradation_and_jains_index_are_the_reports(tmp_path, engine):
    folder, printed = run(tmp_path, MIX_SPEC)
    [mix] = mix_results(Experiment.read(folder))
    members = {d.application: d for d in mix.degradations}
    assert set(members) == {"read", "write"} and mix.fairness is not None
    jain = f"{mix.fairness.jain_index:.2f}"
    report = build_report(folder)
    for shown in (printed, results(folder)):
        table = shown[shown.index("mixes against standalone") :]
        for name, lost in members.items():
            # The row of the member: its degradation in the report's words.
            [row] = [line for line in table.splitlines() if f"│ {name} " in line]
            assert degradation_change(lost) in row
            # ... which the report's conclusion states the same way.
            assert html.escape(f"{name} {degradation_change(lost)} of its standalone") in report
        assert f"│ {jain} │" in table
    with (folder / "summary.csv").open(newline="") as src:
        [row] = [r for r in csv.DictReader(src) if r["mix"] == "read+write"]
    assert float(row["mix_jain_index"]) == pytest.approx(mix.fairness.jain_index, rel=1e-12)
    for i in (1, 2):
        lost = members[row[f"mix_member{i}"]]
        assert float(row[f"mix_member{i}_degradation"]) == pytest.approx(lost.fraction, rel=1e-12)
        low = float(row[f"mix_member{i}_degradation_ci95_low"])
        assert low == pytest.approx(lost.low, rel=1e-12) or math.isinf(low)
        assert float(row[f"mix_member{i}_degradation_ci95_high"]) == pytest.approx(lost.high)
        assert float(row[f"mix_member{i}_degradation_p"]) == pytest.approx(lost.p, rel=1e-12)


def test_one_backend_and_two_targets_compare_the_targets_and_state_a_headline(tmp_path, engine):
    # The default experiment's shape: one directory, the lsm and btree engines.
    folder, printed = run(tmp_path, TARGETS_SPEC)
    stated = headline(Experiment.read(folder))
    assert stated is not None
    # Either, with a validity caveat at its end when a check failed (a busy machine's CPU).
    assert stated.startswith(
        (
            "Largest significant difference of 2 comparisons: btree is ",
            "No significant difference between the targets in 2 comparisons (Welch t-test, 5%)",
        )
    )
    for shown in (printed, results(folder)):
        compared = shown[shown.index("targets against lsm (Welch t-test)") :]
        compared = compared[: compared.index("difference: mean ratio")]
        assert compared.count("│ btree ") == 2  # per thread level, btree against lsm
        assert stated in shown  # the terminal states the report's headline
    report = build_report(folder)
    assert f'<p class="headline">{html.escape(stated)}</p>' in report
    assert "Targets compared: t-tests, reads and writes" in report
    assert "Welch t-tests of each target minus the baseline (the first target)" in report
    assert "target (band: 95% CI)" in report  # the threads chart has a line per target
