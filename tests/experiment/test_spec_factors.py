"""The factor layout of specs: levels defined elsewhere in the spec, levels that cannot
combine, stopping rules, profiles — each refused naming its field path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.checks import run_problems
from contio.experiment.load import parse_spec_text

BASE = """
name: f
backends:
  a: {type: local-dir}
  b: {type: local-dir}
factors:
  backend: [a, b]
  target: [null]
  workload: [workloada, workloadc]
  threads: [1, 2]
"""


def problems(text: str, profile: str | None = None) -> list[str]:
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(text, "f.yaml", Path.cwd(), profile)
    return [str(p) for p in info.value.problems]


def test_the_factor_layout_resolves_its_levels():
    spec = parse_spec_text(BASE, "f.yaml", Path.cwd())
    assert list(spec.backend_definitions()) == ["a", "b"]
    assert spec.target_levels() == ["null"]
    assert [w.name for w in spec.workload_levels()] == ["workloada", "workloadc"]
    assert spec.thread_levels() == [1, 2]
    assert spec.stop.rule == "workload" and spec.repetition_count == 3


def test_levels_must_be_defined_in_the_spec():
    text = BASE.replace("backend: [a, b]", "backend: [a, c]")
    text += "  mix: [m]\n  io_controls: [none, tight]\n  runtime: [podman]\n"
    found = problems(text.replace("  workload: [workloada, workloadc]\n", ""))
    assert "factors.backend[1]: 'c' is not defined; allowed: a, b" in found
    assert "factors.mix[0]: 'm' is not defined; allowed: (none)" in found
    assert "factors.io_controls[1]: 'tight' is not defined; allowed: none" in found
    assert "factors.runtime[0]: 'podman' is not defined; allowed: process, docker" in found


def test_a_mix_cannot_combine_with_a_workload_factor():
    text = BASE + "  mix: [m]\nmixes:\n  m: [{workload: workloadc}]\n"
    assert problems(text) == [
        "factors.mix: cannot combine with a workload factor: a mix names its own"
    ]


def test_a_mix_member_names_a_defined_backend_of_its_own():
    mix = "mixes:\n  m: [{workload: workloadc, backend: b}, {workload: workloada, backend: c}]\n"
    text = BASE.replace("  workload: [workloada, workloadc]\n", "  mix: [m]\n") + mix
    found = problems(text)
    assert any("mixes.m[1].backend" in p and "'c' is not defined" in p for p in found), found
    assert not any("mixes.m[0]" in p for p in found)


def test_the_flat_layout_and_factors_cannot_both_name_a_factor():
    assert problems(BASE + "threads: [4]\n") == [
        "threads: give `threads` or `factors.threads`, not both"
    ]


def test_a_docker_volume_backend_cannot_combine_with_the_process_runtime():
    text = BASE.replace(
        "b: {type: local-dir}", "b: {type: nfs, export_path: /srv/x, mount_via: docker-volume}"
    )
    [found] = problems(text)
    assert found.startswith("backends.b.mount_via: 'docker-volume' cannot combine with runtime")
    assert "allowed here: host" in found


def test_stopping_rules_check_their_sizes_and_own_their_properties():
    [found] = problems(BASE + "stop: {rule: adaptive}\n")
    assert found == "stop: rule 'adaptive' needs exactly one of 'operations' or 'seconds'"
    [found] = problems(BASE + "stop: {rule: fixed-ops}\n")
    assert found == "stop: rule 'fixed-ops' needs 'operations'"
    text = BASE + "stop: {rule: fixed-ops, operations: 10}\nproperties: {operationcount: 5}\n"
    assert problems(text) == [
        "properties.operationcount: set by stop rule 'fixed-ops'; remove it or use rule 'workload'"
    ]
    [found] = problems(BASE + "stop: {rule: fixed-time, seconds: 1, rule2: x}\n")
    assert found.startswith("stop.rule2: unknown key; allowed keys here: rule, operations")


def test_property_factors_and_common_properties_do_not_overlap():
    text = BASE + "  properties: {fieldlength: [10, 20]}\nproperties: {fieldlength: 5}\n"
    assert problems(text) == ["factors.properties.fieldlength: also set in `properties`; keep one"]


def test_a_profile_merges_into_the_spec():
    text = BASE + (
        "profiles:\n  tiny: {factors: {threads: [8]}, stop: {rule: fixed-time, seconds: 1}}\n"
    )
    spec = parse_spec_text(text, "f.yaml", Path.cwd(), "tiny")
    assert spec.thread_levels() == [8]
    assert [w.name for w in spec.workload_levels()] == ["workloada", "workloadc"]  # kept
    assert spec.stop.rule == "fixed-time" and spec.stop.seconds == 1
    assert parse_spec_text(text, "f.yaml", Path.cwd()).thread_levels() == [1, 2]


def test_an_unknown_profile_lists_the_profiles():
    text = BASE + "profiles: {tiny: {}, small: {}}\n"
    assert problems(text, "huge") == ["--profile: no profile 'huge'; allowed: tiny, small"]


def test_errors_from_a_profile_say_which_profile():
    text = BASE + "profiles: {tiny: {factors: {threads: [0]}}}\n"
    with pytest.raises(InvalidSpecError, match=r"f.yaml \(profile tiny\)"):
        parse_spec_text(text, "f.yaml", Path.cwd(), "tiny")


def test_drop_caches_needs_root_to_run_but_not_to_be_read(monkeypatch):
    # The test machine runs as root; a non-root user is simulated (it cannot be had here).
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    spec = parse_spec_text(BASE + "drop_caches: true\n", "f.yaml", Path.cwd())
    [found] = run_problems(spec)
    assert str(found).startswith("drop_caches: needs root to write /proc/sys/vm/drop_caches")
    assert run_problems(parse_spec_text(BASE, "f.yaml", Path.cwd())) == []


def test_unknown_workload_kinds_are_named():
    text = BASE.replace("[workloada, workloadc]", "[{kind: iozone, file: x.fio}]")
    [found] = problems(text)
    assert found == (
        "factors.workload[0]: workload kind 'iozone' is not available; allowed: ycsb, sysbench, "
        "fio, tpcc, cassandra-stress"
    )


def test_node_stop_events_need_a_gluster_level_a_restart_after_the_stop_and_a_run_to_stop_in():
    event = "events: [{type: stop-node, node: 2, at: 1, restart_at: 4}]\n"
    assert problems(BASE + event) == [
        "events: stop-node events need a backend level of type 'gluster'; this spec has: local-dir"
    ]
    [order] = problems(BASE + event.replace("restart_at: 4", "restart_at: 1"))
    assert order.startswith("events[0]") and "must be later than 'at'" in order
    gluster = BASE.replace("b: {type: local-dir}", "b: {type: gluster}")
    late = event.replace("at: 1,", "at: 3,") + "stop: {rule: fixed-time, seconds: 3}\n"
    [never] = problems(gluster + late)
    assert never == (
        "events[0].at: 3 s is not before the run phase ends (stop.seconds: 3); "
        "the node would never be stopped"
    )


def test_the_analysis_section_names_a_test_and_a_backend_level():
    spec = parse_spec_text(BASE + "analysis: {t_test: paired, baseline: b}\n", "f.yaml", Path.cwd())
    assert (spec.analysis.t_test, spec.analysis.baseline) == ("paired", "b")
    default = parse_spec_text(BASE, "f.yaml", Path.cwd()).analysis
    assert (default.t_test, default.baseline) == ("welch", None)
    found = problems(BASE + "analysis: {t_test: student, baseline: c, alpha: 0.01}\n")
    assert "analysis.t_test: 'student' is not allowed; allowed: welch or paired" in found
    assert "analysis.alpha: unknown key; allowed keys here: t_test, baseline" in found
    found = problems(BASE + "analysis: {baseline: c}\n")
    assert found == ["analysis.baseline: 'c' is not a backend level; allowed: a, b"]
