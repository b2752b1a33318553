"""The packaged workload files: found by name, and each one loads with the real engine."""

from pathlib import Path

import pytest

from contio.engine.invocation import run_engine, ycsb_args
from contio.workload.files import packaged_workloads, resolve_workload

PACKAGED = packaged_workloads()


def test_a_packaged_name_and_a_relative_path_resolve(tmp_path):
    name = next(iter(PACKAGED))
    assert resolve_workload(name, tmp_path).path == PACKAGED[name]
    (tmp_path / "w.properties").write_text("readproportion=1\n")
    ref = resolve_workload("./w.properties", tmp_path)
    assert (ref.name, ref.path) == ("w.properties", tmp_path / "w.properties")


def test_an_unknown_name_lists_the_packaged_ones(tmp_path):
    with pytest.raises(LookupError) as info:
        resolve_workload("workloadz", tmp_path)
    assert ", ".join(PACKAGED) in str(info.value)


@pytest.mark.parametrize("name", sorted(PACKAGED))
def test_every_packaged_workload_loads_and_runs(tmp_path: Path, engine, name):
    props = {"recordcount": "50", "operationcount": "200"}
    for phase in ("load", "run"):
        out = tmp_path / f"{phase}.json"
        result = run_engine(ycsb_args(phase, "null", [PACKAGED[name]], props, 2, out), out)
        assert result.status == "ok"
        assert result.operations == (50 if phase == "load" else 200)
