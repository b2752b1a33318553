"""A real tiny run writes findings.json with a verdict from its own measurements."""

from __future__ import annotations

import json
import subprocess
import sys

from findings_asserts import assert_verdict_follows_the_checks


def test_a_tiny_run_writes_findings_json(tmp_path, engine):
    data = tmp_path / "data"
    data.mkdir()
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: tiny-findings\n"
        f"backends: {{a: {{type: local-dir, path: {data}}}, b: {{type: local-dir, path: {data}}}}}\n"
        "factors: {backend: [a, b], target: [null], workload: [workloadc], threads: [1]}\n"
        "stop: {rule: fixed-ops, operations: 500, repetitions: 2}\n"
        "properties: {recordcount: 50}\n"
        "findings:\n"
        "  - {id: same, paper: '000', system: MongoDB, claim: A keeps up with B., kind: equivalent,\n"
        "     margin: 50, cells: {backend: a}, against: {backend: b}}\n"
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "contio", "run", str(spec), "--results-dir", str(tmp_path / "r")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "The paper's findings on this machine" in done.stdout
    [folder] = list((tmp_path / "r").iterdir())
    found = json.loads((folder / "findings.json").read_text())
    [verdict] = found["verdicts"]
    assert verdict["id"] == "same" and verdict["subject"] == "null, standing in for MongoDB"
    assert_verdict_follows_the_checks(verdict, folder)
    assert verdict["evidence"][0]["numbers"]["n"] == 2
