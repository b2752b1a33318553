"""The report's first section: the paper's findings on this machine, one verdict each.

Each claim of the spec (`findings:`, docs/findings.md) with its verdict — reproduced,
contradicted, inconclusive (and what would decide), not valid here (and why), not
tested — the system it is about or the stand-in that ran instead, and the tests behind
it with their numbers (`contio.findings.verdicts`, as findings.json holds them).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from contio.findings.document import current_findings
from contio.findings.verdicts import Counts, Verdict
from contio.report.page import Section, bullet_list, details, table

TITLE = "The paper's findings on this machine"


def _about(verdict: Verdict) -> str:
    paper = f"paper {verdict.paper}" if verdict.paper else "the spec"
    return f"{paper} · {verdict.subject}" if verdict.subject else paper


def _tests(verdict: Verdict) -> str:
    rows = [(e.label, e.outcome, e.text, e.to_decide.text() if e.to_decide else "")
            for e in verdict.evidence]  # fmt: skip
    caption = f"{verdict.kind} · {verdict.metric} · α = {verdict.alpha:g}"
    return table(("cells", "outcome", "numbers", "to decide"), rows, caption, css_class="evidence")


def findings_section(verdicts: list[Verdict]) -> Section:
    """One row per claim, then per claim its stand-ins, checks and tests."""
    section = Section("findings", TITLE)
    section.intro = (
        f"{len(verdicts)} claims: {Counts.of(verdicts).text()}. A verdict holds for this "
        "machine and this profile's sizes; one measured on a stand-in is about the stand-in."
    )
    rows = [(v.id, _about(v), v.claim, v.outcome) for v in verdicts]
    section.blocks.append(
        table(("finding", "about", "claim", "verdict"), rows, css_class="findings")
    )
    for verdict in verdicts:
        notes = [verdict.summary]
        notes += [s.sentence() for s in verdict.stand_ins]
        inner = bullet_list(notes, "verdict-notes")
        if verdict.evidence:
            inner += _tests(verdict)
        title = f"{verdict.id}: {verdict.outcome}"
        section.blocks.append(
            f'<div class="finding" data-outcome="{escape(verdict.outcome)}">'
            + details(title, inner)
            + "</div>"
        )
    return section


def findings_sections(folder: Path) -> list[Section]:
    """The report's opening section for a results folder: none when its spec lists no
    claims (findings.json is written when missing or stale)."""
    verdicts = current_findings(folder)
    return [findings_section(verdicts)] if verdicts else []
