"""Assertions shared by the findings tests."""

from __future__ import annotations

from pathlib import Path

from contio.findings.validity import check_cells, folder_meta
from contio.results.folder import load

DECIDED = ("reproduced", "contradicted", "inconclusive")


def assert_verdict_follows_the_checks(verdict: dict, folder: Path) -> None:
    """The verdict of a live run, whose outcome the machine's load may change, checked
    against what can be known: the validity checks computed here, from the folder, on
    the verdict's cells. A check failed there: the verdict is 'not valid here', names
    exactly those checks and keeps the measured outcome; none failed: it is the measured
    outcome itself."""
    cells = {key for evidence in verdict["evidence"] for key in evidence["cells"]}
    failed = {
        check.name
        for check in check_cells(load(folder), folder_meta(folder))
        if check.passed is False and (check.cell_key is None or check.cell_key in cells)
    }
    if failed:
        assert verdict["outcome"] == "not valid here", (verdict["outcome"], failed)
        named = {reason.split(":")[0] for reason in verdict["not_valid"]}
        assert named == failed
        assert any(f"measured: {outcome}" in verdict["summary"] for outcome in DECIDED)
    else:
        assert verdict["outcome"] in DECIDED and not verdict.get("not_valid")
