"""The report's placement section: present for a `contio advise --validate` folder only,
with every member's prediction beside its measurement and the placements side by side."""

from __future__ import annotations

from contio.profile.validation import MemberCheck, PlacementCheck, write_validation
from contio.report.placement_section import placement_sections


def _check(label: str, measured: list[float | None]) -> PlacementCheck:
    members = [
        MemberCheck(f"m{k}", "disk-a", 0.5, 0.1, value, None if value is None else 0.05)
        for k, value in enumerate(measured)
    ]
    return PlacementCheck(label, members)


def test_a_validation_folder_gets_the_section_and_others_do_not(tmp_path):
    assert placement_sections(tmp_path) == []
    write_validation(tmp_path, [_check("recommended", [0.5, 0.7]), _check("naive", [0.9, None])],
                     "fairness")  # fmt: skip
    [section] = placement_sections(tmp_path)
    html = "".join(section.blocks)
    assert section.id == "placement" and "objective fairness" in section.intro
    assert "median absolute prediction error 20.0 percentage points" in section.intro  # 0, .2, .4
    assert "1.20 ± 0.07" in html  # recommended's aggregate: 0.5 + 0.7, hypot(0.05, 0.05)
    assert "m0: 0.50 ± 0.05" in html  # its worst member
    assert "failed" in html  # naive's member that did not complete
    assert html.count("<table") == 3  # side by side, then each placement
