"""The report's placement section: `contio advise --validate`'s comparison, when the
results folder holds one (`validation.json`, `contio.profile.validation`).

Each placement's members with the model's prediction beside the run's measurement (both
as normalized throughput: the member's rate over its application's alone on the same
place, in the same run), then the placements side by side: measured aggregate and
worst member, with their 95 % half-widths.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contio.profile.validation import VALIDATION_JSON
from contio.report.page import Section, table

TITLE = "Placement advice: predicted against measured"


def _plus_minus(value: float | None, half: float | None) -> str:
    if value is None:
        return "failed"
    return f"{value:.2f}" + ("" if half is None else f" ± {half:.2f}")


def _members_table(placement: dict[str, Any]) -> str:
    rows = [
        (m["name"], m["place"], _plus_minus(m["predicted"], m["predicted_uncertainty"]),
         _plus_minus(m["measured"], m["measured_half_width"]),
         "—" if m["error"] is None else f"{m['error']:+.2f}")
        for m in placement["members"]
    ]  # fmt: skip
    caption = f"{placement['label']}: each member × its rate alone on its place"
    header = ("member", "place", "predicted", "measured", "error")
    return table(header, rows, caption, numeric=(2, 3, 4))


def _side_by_side(placements: list[dict[str, Any]]) -> str:
    rows = []
    for p in placements:
        aggregate = p["aggregate"]
        members = {m["name"]: m for m in p["members"]}
        worst = members.get(p["worst"]) if p["worst"] else None
        rows.append((
            p["label"],
            "—" if aggregate is None else _plus_minus(aggregate[0], aggregate[1]),
            "—" if worst is None else f"{worst['name']}: "
            + _plus_minus(worst["measured"], worst["measured_half_width"]),
        ))  # fmt: skip
    return table(("placement", "aggregate (measured)", "worst member (measured)"), rows,
                 "the placements side by side", numeric=(1,))  # fmt: skip


def placement_sections(folder: Path) -> list[Section]:
    """The section, when `folder` is a `contio advise --validate` run; else none."""
    path = folder / VALIDATION_JSON
    if not path.is_file():
        return []
    document = json.loads(path.read_text())
    section = Section("placement", TITLE)
    error = document.get("median_absolute_error")
    said = f"objective {document['objective']}"
    if error is not None:
        said += f"; median absolute prediction error {error * 100:.1f} percentage points"
    section.intro = said + "."
    placements = document["placements"]
    section.blocks.append(_side_by_side(placements))
    section.blocks += [_members_table(p) for p in placements]
    return [section]
