"""`io_controls` levels whose groups are tenants of paper 004's middleware: validated
before anything runs, each mistake naming its field (docs/middleware.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text

BASE = """
name: m
factors:
  workload: [{kind: fio, name: read, job: {rw: read, direct: 1, size: 16m}}]
  containers: [3]
  io_controls: [none, shares]
io_controls:
  shares: {LEVEL}
"""


def parse(level: str):
    return parse_spec_text(BASE.replace("{LEVEL}", level), "m.yaml", Path.cwd())


def problems(level: str) -> list[str]:
    with pytest.raises(InvalidSpecError) as info:
        parse(level)
    return [str(p) for p in info.value.problems]


def test_a_middleware_level_takes_tenants_with_priorities_reservations_and_limits():
    spec = parse(
        "{middleware: {policy: static, capacity: 20000000},"
        " groups: [{priority: 100}, {priority: 1, limit: 5000000}, {priority: 1, reservation: 1000000}]}"
    )
    level = spec.io_controls["shares"]
    assert level.middleware is not None and level.middleware.policy == "static"
    assert [g.priority for g in level.groups] == [100, 1, 1]
    assert level.groups[1].limit == 5_000_000


@pytest.mark.parametrize(
    ("level", "message"),
    [
        ("{middleware: {}, groups: [{priority: 0}]}", "greater than or equal to 1"),
        ("{middleware: {}, groups: [{priority: 101}]}", "less than or equal to 100"),
        ("{middleware: {}, groups: [{limit: 5000000}]}", "groups[0]: a middleware tenant needs a priority"),
        ("{middleware: {}, groups: [{priority: 5, write_bps: 1000}]}",
         "groups[0]: write_bps are cgroup controls on this host"),
        ("{groups: [{priority: 5}]}", "groups[0]: priority are settings of a middleware tenant"),
        ("{middleware: {policy: fair}, groups: [{priority: 5}]}", "allowed: static or work-conserving"),
        ("{middleware: {}, groups: [{priority: 5, limit: '10%'}]}",
         "groups[0].limit: give bytes/s"),
        ("{middleware: {}, device: /dev/loop0, groups: [{priority: 5}]}",
         "device: the middleware controls each storage node's brick disk"),
    ],
)  # fmt: skip
def test_bad_middleware_levels_name_the_field(level, message):
    [found] = problems(level)
    assert found.startswith("io_controls.shares") and message in found, found
