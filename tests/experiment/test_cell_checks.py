"""Cells whose runtime cannot run their targets, backends or block I/O groups are refused
before anything runs, naming the field that brought the level in; database targets and
their options (`target_options`) are validated with the allowed values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand

BASE = """
name: c
factors:
  target: [lsm, redis]
  workload: [workloada]
"""


def problems(text: str) -> list[str]:
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(text, "c.yaml", Path.cwd())
    return [str(p) for p in info.value.problems]


def test_a_database_target_with_the_process_runtime_is_refused_naming_the_target():
    [found] = problems(BASE)
    assert found.startswith("factors.target[1]: 'redis' is a database target")
    assert "needs runtime 'docker', not 'process'" in found
    assert "set `runtime: {type: docker}`" in found


def test_the_docker_runtime_runs_database_and_engine_targets():
    spec = parse_spec_text(BASE + "runtime: {type: docker}\n", "c.yaml", Path.cwd())
    cells = expand(spec)
    assert [c.level["runtime"] for c in cells] == ["docker", "docker"]
    assert [m.database for c in cells for m in c.members] == [False, True]


def test_a_runtime_factor_asks_to_exclude_the_combination_that_cannot_run():
    text = BASE + "  runtime: [process, docker]\n"
    [found] = problems(text)
    assert found.startswith("factors.target[1]: 'redis' is a database target")
    assert "exclude it: `exclude: [{target: redis, runtime: process}]`" in found
    spec = parse_spec_text(
        text + "exclude: [{target: redis, runtime: process}]\n", "c.yaml", Path.cwd()
    )
    assert len(expand(spec)) == 3


def test_a_mix_member_naming_a_database_names_its_own_path():
    text = """
name: m
mixes:
  pair: [{workload: workloadc, target: lsm}, {workload: workloada, target: mariadb}]
factors:
  mix: [pair]
"""
    [found] = problems(text)
    assert found.startswith("mixes.pair[1].target: 'mariadb' is a database target")


def test_block_io_groups_with_the_docker_runtime_are_refused():
    text = BASE + (
        "  io_controls: [none, tight]\n"
        "io_controls: {tight: {groups: [{write_bps: 1048576}]}}\n"
        "runtime: {type: docker}\n"
    )
    [found] = problems(text)
    assert found.startswith("factors.io_controls[1]: 'tight': block I/O groups")


def test_a_docker_volume_backend_runs_with_the_docker_runtime():
    text = """
name: v
backends: {vol: {type: local, mode: docker-volume}}
factors: {target: [null], workload: [workloada]}
"""
    [found] = problems(text)
    assert found.startswith("backends.vol.mode: 'docker-volume' cannot combine with runtime")
    parse_spec_text(text + "runtime: {type: docker}\n", "v.yaml", Path.cwd())


def test_target_options_are_checked_with_their_allowed_values():
    text = BASE + "runtime: {type: docker}\n"
    found = problems(
        text + "target_options:\n  lsm: {cache: minimal}\n  redis: {cache: off, memory: 1g}\n"
    )
    assert "target_options.redis.cache: False is not allowed; allowed: default or minimal" in found
    assert (
        "target_options.redis.memory: unknown key; allowed keys here: cache, memory_limit, image"
        in found
    )
    [found] = problems(text + "target_options: {nosuch: {memory_limit: 64m}}\n")
    assert found == (
        "target_options.nosuch: 'nosuch' has no server or files to configure; "
        "allowed: mariadb, postgres, redis, cassandra, ferretdb, mongodb, lsm, btree"
    )
    [found] = problems(text + "target_options: {lsm: {cache: minimal, memory_limit: 64m}}\n")
    assert found.startswith(
        "target_options.lsm.cache: an embedded engine runs inside the engine's own container: "
        "only memory_limit applies to 'lsm'"
    )
    spec = parse_spec_text(
        text + "target_options: {lsm: {memory_limit: 64m}}\n", "c.yaml", Path.cwd()
    )
    assert spec.target_options_for("lsm").memory_limit == "64m"
    [found] = problems(text + "target_options: {redis: {memory_limit: 1m}}\n")
    assert found == "target_options.redis.memory_limit: '1m' is below Docker's minimum of 6m"
    [found] = problems(text + "target_options: {redis: {memory_limit: lots}}\n")
    assert found.startswith("target_options.redis.memory_limit: 'lots' is not a size")
    spec = parse_spec_text(
        text + "target_options: {redis: {cache: minimal, memory_limit: 512m, image: redis:7}}\n",
        "c.yaml",
        Path.cwd(),
    )
    options = spec.target_options_for("redis")
    assert (options.cache, options.memory_limit, options.image) == ("minimal", "512m", "redis:7")
    assert spec.target_options_for("postgres").cache == "default"


def test_an_embedded_engine_s_memory_limit_needs_the_docker_runtime():
    # A local process has no memory cgroup of its own: the limit would silently not hold.
    [found] = problems(
        BASE.replace("lsm, redis", "lsm") + "target_options: {lsm: {memory_limit: 64m}}\n"
    )
    assert found.startswith(
        "target_options.lsm.memory_limit: a memory limit for 'lsm' needs its engine in a "
        "container: runtime 'docker', not 'process'"
    )


def test_an_unknown_runtime_type_lists_the_allowed_ones():
    [found] = problems(BASE + "runtime: {type: podman}\n")
    assert found == "runtime.type: 'podman' is not allowed; allowed: process or docker"


def test_a_database_binding_gets_its_own_namespaced_properties():
    text = BASE + "runtime: {type: docker}\nproperties: {mysql.user: x, lsm.cache_bytes: 0}\n"
    spec = parse_spec_text(text.replace("redis]", "mariadb]"), "c.yaml", Path.cwd())
    assert spec.properties_for("mariadb") == {"mysql.user": "x"}
    assert spec.properties_for("lsm") == {"lsm.cache_bytes": "0"}


def test_plan_refuses_a_database_target_with_the_process_runtime(tmp_path):
    spec = tmp_path / "c.yaml"
    spec.write_text(BASE)
    done = subprocess.run(
        [sys.executable, "-m", "contio", "plan", spec], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "factors.target[1]: 'redis' is a database target" in done.stderr


def test_the_database_targets_a_spec_knows_are_the_registrys():
    from contio.cells.bindings import ENGINE_TARGET
    from contio.targets import registry
    from contio.targets.engine_targets import DATABASE_BINDINGS, TARGETS

    # A target added to the registry needs its binding here too (the spec checks use it
    # without importing the targets).
    assert list(DATABASE_BINDINGS) == registry.names()
    assert all(binding in TARGETS for binding in DATABASE_BINDINGS.values())
    assert ENGINE_TARGET is DATABASE_BINDINGS


def test_a_mariadb_memory_limit_it_cannot_start_in_is_refused():
    text = BASE.replace("[lsm, redis]", "[mariadb]") + (
        "runtime: {type: docker}\ntarget_options: {mariadb: {memory_limit: 64m}}\n"
    )
    [found] = problems(text)
    assert found.startswith("target_options.mariadb.memory_limit: '64m' is below the 128m")
    parse_spec_text(text.replace("64m", "128m"), "c.yaml", Path.cwd())
