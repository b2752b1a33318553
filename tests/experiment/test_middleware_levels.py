"""`io_controls` levels whose groups are tenants of paper 004's middleware: validated
before anything runs, each mistake naming its field (docs/middleware.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand

BASE = """
name: m
factors:
  workload: [{kind: fio, name: read, job: {rw: read, direct: 1, size: 16m}}]
  containers: [3]
  io_controls: [none, shares]
io_controls:
  shares: {LEVEL}
runtime: {type: process}
backends: {g: {type: gluster, volume_type: distributed, bricks: 3, volume_per_tenant: true}}
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
        ("{middleware: {}, groups: [{priority: 0}]}", "0 is too small: must be at least 1"),
        ("{middleware: {}, groups: [{priority: 101}]}", "101 is too large: must be at most 100"),
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


def test_groups_of_one_tenant_share_its_settings_and_default_to_one_tenant_each():
    spec = parse(
        "{middleware: {policy: static}, groups: [{tenant: paraview, priority: 100},"
        " {tenant: background, priority: 1, limit: 5000000},"
        " {tenant: background, priority: 1, limit: 5000000}]}"
    )
    level = spec.io_controls["shares"]
    assert [level.tenant_of(k) for k in range(3)] == ["paraview", "background", "background"]
    assert list(level.tenants()) == ["paraview", "background"]
    unnamed = parse("{middleware: {}, groups: [{priority: 2}, {priority: 3}]}").io_controls[
        "shares"
    ]
    assert list(unnamed.tenants()) == ["t1", "t2"]


def test_a_tenant_with_two_priorities_is_refused_naming_the_group():
    [found] = problems(
        "{middleware: {}, groups: [{tenant: bg, priority: 1}, {tenant: bg, priority: 2}]}"
    )
    assert "groups[1].priority: tenant 'bg' has priority 1 in groups[0]" in found, found


def test_middleware_containers_keep_their_data_on_their_tenants_volumes():
    spec = parse("{middleware: {}, groups: [{tenant: a, priority: 9}, {priority: 1}]}")
    cells = {c.level["io_controls"]: c for c in expand(spec)}
    assert [m.tenant for m in cells["shares"].members] == ["a", "t2", None]
    assert [m.tenant for m in cells["none"].members] == [None, None, None]
    # Data on a tenant's volume is not the uncontrolled cell's: each loads its own.
    assert cells["shares"].load_key() != cells["none"].load_key()


def test_a_middleware_level_needs_a_gluster_backend_with_a_volume_per_tenant():
    text = BASE.replace("{LEVEL}", "{middleware: {}, groups: [{priority: 9}]}").replace(
        ", volume_per_tenant: true", ""
    )
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(text, "m.yaml", Path.cwd())
    [found] = [str(p) for p in info.value.problems]
    assert found.startswith("backends.g.volume_per_tenant") and "volume_per_tenant: true" in found
