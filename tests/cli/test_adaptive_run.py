"""The adaptive rule and the warm-up through a real run: a cell stops at the first
repetition whose interval is narrow enough (or at the maximum), and every run phase
leaves its warm-up second out."""

from __future__ import annotations

import subprocess
import sys

from contio.results.folder import load
from contio.stats import confidence_interval

SPEC = """
name: adaptive
backend: {{type: local-dir, path: {data}}}
factors: {{target: [null], workload: [workloadc], threads: [1]}}
stop: {{rule: adaptive, seconds: 2, ci_target: {target}, min_repetitions: 2, max_repetitions: 4}}
warmup_seconds: 1
properties: {{recordcount: 100}}
"""


def test_the_adaptive_rule_stops_as_soon_as_the_interval_is_narrow_enough(tmp_path, engine):
    (tmp_path / "data").mkdir()
    spec = tmp_path / "spec.yaml"
    target = 0.2
    spec.write_text(SPEC.format(data=tmp_path / "data", target=target))
    done = subprocess.run(
        [sys.executable, "-m", "contio", "run", spec, "--results-dir", tmp_path / "results"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [folder] = list((tmp_path / "results").iterdir())
    runs = load(folder).sort_values("repetition")
    ops = list(runs["steady_ops_per_sec"])
    assert 2 <= len(ops) <= 4
    # It stopped at the first repetition count that met the target, or at the maximum.
    widths = [confidence_interval(ops[:n]).relative_half_width for n in range(2, len(ops) + 1)]
    assert all(w > target for w in widths[:-1])
    assert widths[-1] <= target or len(ops) == 4
    assert set(runs["warmup_excluded_s"]) == {1.0}
    # ops/s after the warm-up: the operations of seconds 2.. over the time after second 1.
    assert all(runs["steady_ops_per_sec"] != runs["throughput_ops_per_sec"])
