"""How a phase's containers are invoked: an embedded engine given a memory limit in
`target_options` carries it to its container; a client of a database server does not
(the server's container has the limit). No Docker needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.cells.bindings import EngineBinding
from contio.cells.engine_client import engine_container
from contio.cells.process_executor import ProcessCellExecutor
from contio.containers.data_location import HostPath
from contio.errors import InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.results.folder import ResultsFolder
from contio.run.phase_calls import container_phase, engine_properties
from contio.run.phase_context import PhaseContext

SPEC = """
name: limits
runtime: {type: docker}
factors: {target: [btree, lsm, redis], workload: [workloadc]}
target_options: {btree: {memory_limit: 128m}, redis: {memory_limit: 256m}}
"""


def phases(tmp_path: Path):
    spec = parse_spec_text(SPEC, "limits.yaml", tmp_path)
    folder = ResultsFolder.create(tmp_path / "results", "limits")
    found = {}
    for cell in expand(spec):
        [member] = cell.members
        binding = EngineBinding("redis", {"redis.host": "db"}) if member.database else None
        context = PhaseContext(spec, folder, 1, cell, 1, "run")
        found[member.target] = container_phase(
            context, 1, member, HostPath(path=tmp_path / cell.slug), binding,
            ProcessCellExecutor(), False, None, None,
        )  # fmt: skip
    return found


def test_an_embedded_engine_s_memory_limit_reaches_its_container(tmp_path):
    found = phases(tmp_path)
    assert found["btree"].memory_limit == "128m"
    assert found["lsm"].memory_limit is None  # no options: no limit
    assert found["redis"].memory_limit is None  # the limit is the server's
    spec = engine_container("c", "contio/engine", [], [], mem_limit="128m")
    assert spec.mem_limit == "128m"


def test_load_properties_reach_the_load_phase_only(tmp_path):
    text = """
name: batches
runtime: {type: docker}
factors: {target: [ferretdb, lsm], workload: [workloada]}
properties: {recordcount: 1000}
load: {properties: {mongodb.batchsize: 100}}
"""
    spec = parse_spec_text(text, "batches.yaml", tmp_path)
    members = {c.members[0].target: c.members[0] for c in expand(spec)}
    load = engine_properties(spec, members["ferretdb"], None, "load")
    run = engine_properties(spec, members["ferretdb"], None, "run")
    assert load["mongodb.batchsize"] == "100" and load["recordcount"] == "1000"
    assert "mongodb.batchsize" not in run and run["recordcount"] == "1000"
    # Another target's namespace is left out, as in `properties`.
    assert "mongodb.batchsize" not in engine_properties(spec, members["lsm"], None, "load")


def test_load_properties_may_not_change_the_data_set(tmp_path):
    text = """
name: batches
factors: {target: [lsm], workload: [workloada]}
load: {properties: {recordcount: 2000}}
"""
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(text, "batches.yaml", tmp_path)
    [problem] = info.value.problems
    assert str(problem).startswith("load.properties.recordcount: defines the data set")
