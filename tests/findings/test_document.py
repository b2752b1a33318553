"""findings.json on a recorded results folder: written, read back, rewritten when stale;
the report's first section and `contio results` show the verdicts.

A full report takes a while to build: it is built once for the module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contio.findings.document import (
    FINDINGS_JSON,
    RULES,
    current_findings,
    read_findings,
    write_findings,
)
from contio.report.assemble import build_report
from contio.report.findings_section import findings_sections

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "report"))
from report_fixtures import results_folder

INJECTED = "<script>alert(1)</script>"
CLAIMS = [
    {"id": "local-vs-other", "paper": "000", "system": "MongoDB", "kind": "equivalent",
     "margin": 50, "claim": f"Local keeps up with {INJECTED}.",
     "cells": {"backend": "local"}, "against": {"backend": INJECTED}},
    {"id": "not-here", "kind": "greater", "claim": "Gluster beats local.",
     "cells": {"backend": "gluster"}, "against": {"backend": "local"}},
]  # fmt: skip


def with_claims(tmp_path: Path) -> Path:
    folder = results_folder("backends", tmp_path)
    spec = json.loads((folder / "spec.json").read_text())
    spec["findings"] = CLAIMS
    (folder / "spec.json").write_text(json.dumps(spec))
    return folder


def test_findings_json_round_trips_and_is_rewritten_when_stale(tmp_path):
    folder = with_claims(tmp_path)
    assert read_findings(folder) is None  # missing
    written = write_findings(folder)
    data = json.loads((folder / FINDINGS_JSON).read_text())
    assert (data["schema"], data["version"]) == ("contio.findings", 1)
    assert [v["id"] for v in data["verdicts"]] == ["local-vs-other", "not-here"]
    first = data["verdicts"][0]
    # The recorded run ran its cells in a fixed order, local first, 36 of 36 times: the
    # order-confounded check rules the comparison out, and the measured outcome stays.
    assert first["outcome"] == "not valid here"
    assert [reason.split(":")[0] for reason in first["not_valid"]] == ["order-confounded"]
    assert "not valid here (measured: inconclusive)" in first["summary"]
    assert first["subject"] == "null, standing in for MongoDB"
    assert {"mean", "mean_against", "ci_low_pct", "ci_high_pct", "p"} <= set(
        first["evidence"][0]["numbers"]
    )
    assert data["verdicts"][1]["outcome"] == "not tested"
    assert read_findings(folder) == written  # the file reads back as what was computed
    spec = json.loads((folder / "spec.json").read_text())
    spec["findings"] = CLAIMS[1:]
    (folder / "spec.json").write_text(json.dumps(spec))
    assert read_findings(folder) is None  # stale: the spec changed
    assert [v.id for v in current_findings(folder)] == ["not-here"]
    assert read_findings(folder) is not None
    # Written under older verdict rules: evaluated again.
    data = json.loads((folder / FINDINGS_JSON).read_text())
    (folder / FINDINGS_JSON).write_text(json.dumps({**data, "rules": RULES - 1}))
    assert read_findings(folder) is None


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> str:
    return build_report(with_claims(tmp_path_factory.mktemp("report")))


def test_the_report_opens_with_the_findings_escaped(report):
    html = report
    assert html.index('<section id="findings">') < html.index('<section id="summary">')
    assert "The paper&#x27;s findings on this machine" in html
    assert INJECTED not in html and "&lt;script&gt;" in html
    assert 'data-outcome="not tested"' in html
    assert "a stand-in for MongoDB" in html


def test_a_report_without_claims_has_no_findings_section(tmp_path):
    assert findings_sections(results_folder("backends", tmp_path)) == []
    (section,) = findings_sections(with_claims(tmp_path / "claims"))
    assert section.id == "findings"


def test_contio_results_prints_the_verdicts(tmp_path):
    folder = with_claims(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "contio", "results", str(folder)],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "COLUMNS": "250"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "The paper's findings on this machine" in done.stdout
    assert "not-here" in done.stdout and "not tested by this profile" in done.stdout
    assert "standing in for MongoDB" in done.stdout
    assert (folder / FINDINGS_JSON).is_file()
