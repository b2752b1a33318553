"""The report's I/O middleware section reads what the runner wrote beside each run."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from contio.report.middleware_sections import (
    achieved_per_node,
    middleware_rows,
    read_moves,
    read_samples,
)


def test_samples_and_moves_are_read_and_a_cut_last_line_is_left_out(tmp_path: Path):
    rep = tmp_path / "raw" / "cell001" / "s1-rep1"
    rep.mkdir(parents=True)
    lines = [
        {"t": 0.5, "node": "node1", "tenant": "app", "measured_bps": 4.9e6, "target_bps": 5e6},
        {"t": 1.5, "node": "node1", "tenant": "app", "measured_bps": 5.0e6, "target_bps": 5e6},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines) + '{"t": 2.5, "node"'
    (rep / "run-middleware.jsonl").write_text(text)
    (rep / "run-middleware-moves.json").write_text(json.dumps([{"t": 1.2, "node": "node1"}]))
    samples = read_samples(tmp_path, "raw/cell001/s1-rep1")
    assert list(samples["measured_bps"]) == [4.9e6, 5.0e6]
    assert read_moves(tmp_path, "raw/cell001/s1-rep1") == [(1.2, "node1")]
    assert read_samples(tmp_path, "raw/cell002/s1-rep1").empty  # no file: no samples


def test_achieved_counts_the_seconds_a_tenant_was_active():
    samples = pd.DataFrame(
        {"tenant": ["app"] * 4 + ["other"], "measured_bps": [0.0, 4e6, 6e6, 10.0, 9e6]}
    )
    # 10 bytes/s is below 1 % of the target: idle, not a slow second.
    assert achieved_per_node(samples, "app", 5e6) == 5e6
    assert achieved_per_node(samples, "missing", 5e6) != achieved_per_node(samples, "missing", 5e6)


def test_only_rows_of_middleware_tenants_are_kept():
    control = {"tenant": "app", "fair_share_bps": 5e6, "mechanism": "I/O middleware"}
    runs = pd.DataFrame(
        {
            "io_control": [json.dumps(control), "", json.dumps({"cgroup": "/x"})],
            "raw_json": ["raw/c1/s1-rep1/run-c1.json", "raw/c2/s1-rep1/run-c1.json", "x/y.json"],
        }
    )
    rows = middleware_rows(runs)
    assert list(rows["tenant"]) == ["app"]
    assert list(rows["target_bps"]) == [5e6]
    assert list(rows["repetition_dir"]) == ["raw/c1/s1-rep1"]
