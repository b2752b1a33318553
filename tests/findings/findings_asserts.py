"""Assertions shared by the findings tests."""

from __future__ import annotations

from contio.experiment.findings import CHECKS


def assert_measured_verdict(verdict: dict) -> None:
    """A verdict from measurements: the null target does no storage I/O, so the validity
    checks may rule its cells out; then they are named, and the measured outcome kept."""
    decided = ("reproduced", "contradicted", "inconclusive")
    if verdict["outcome"] == "not valid here":
        assert verdict["not_valid"]
        assert all(reason.split(":")[0] in CHECKS for reason in verdict["not_valid"])
        assert any(f"measured: {outcome}" in verdict["summary"] for outcome in decided)
    else:
        assert verdict["outcome"] in decided
