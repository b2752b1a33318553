"""Mix cells against their standalone cells: a mix that lists one application twice
names its members apart (the report's chart needs one bar per member)."""

from __future__ import annotations

import json

from contio.stats.mix_comparison import compare_mixes


def _cell(key: str, mix: str, members: int) -> dict[str, object]:
    levels = {"backend": "a", "mix": mix, "containers": 1}
    return {"cell_key": key, "cell_index": 1, "levels": levels, "members": members}


def _row(key: str, repetition: int, container: int, ops: float) -> dict[str, object]:
    return {"cell_key": key, "repetition": repetition, "container": container,
            "workload": "r", "target": "null", "status": "ok",
            "steady_ops_per_sec": ops}  # fmt: skip


def test_one_application_twice_in_a_mix_gives_two_named_members():
    cells = [_cell("twice", "twice", 2), _cell("alone", "read", 1)]
    runs = [_row("alone", r, 1, 100.0 + r) for r in (1, 2, 3)]
    runs += [_row("twice", r, c, 50.0 + r + c) for r in (1, 2, 3) for c in (1, 2)]
    [found] = compare_mixes(cells, runs)
    assert [m.name for m in found.members] == ["read", "read #2"]
    assert json.dumps(found.levels) and found.members[1].mixed == (53.0, 54.0, 55.0)
