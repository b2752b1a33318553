"""The `tpcc` workload kind: its spec entry is validated by key, it runs on `mariadb`
and `postgres` only (the error names the field and the allowed targets), and it hands
`contio-engine tpcc` only the properties that command knows."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import FileWorkloadError, InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.workload.file_kinds import EngineCall
from contio.workload.kinds import KINDS
from contio.workload.tpcc_kind import tpcc_workload

SPEC = """
name: t
runtime: {type: docker}
factors:
  target: [TARGET]
  workload: [{kind: tpcc, warehouses: 2}]
"""


def test_an_entry_needs_a_whole_number_of_warehouses_and_known_keys():
    ref = tpcc_workload({"kind": "tpcc", "warehouses": 3})
    assert (ref.name, ref.kind, ref.options) == ("tpcc-3w", "tpcc", (("warehouses", "3"),))
    for bad in (0, -1, "4", 1.5, True, None):
        with pytest.raises(FileWorkloadError, match="warehouses"):
            tpcc_workload({"kind": "tpcc", "warehouses": bad})
    with pytest.raises(FileWorkloadError, match=r"unknown key 'items'.*kind, name, warehouses"):
        tpcc_workload({"kind": "tpcc", "warehouses": 1, "items": 10})


@pytest.mark.parametrize("target", ["mariadb", "postgres"])
def test_mariadb_and_postgres_run_it_as_database_members(target: str):
    [cell] = expand(parse_spec_text(SPEC.replace("TARGET", target), "t.yaml", Path.cwd()))
    [member] = cell.members
    assert member.kind == "tpcc" and member.database and member.writes
    assert cell.label.startswith(f"backend=local-dir · target={target} · workload=tpcc-2w")


@pytest.mark.parametrize("target", ["lsm", "redis", "null"])
def test_other_targets_are_refused_naming_the_field_and_the_allowed_ones(target: str):
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(SPEC.replace("TARGET", target), "t.yaml", Path.cwd())
    found = [str(p) for p in info.value.problems]
    assert any(
        p.startswith("factors.target[0]: ") and "allowed targets: mariadb, postgres" in p
        for p in found
    ), found


def test_a_bad_entry_is_refused_in_the_spec():
    text = SPEC.replace("TARGET", "mariadb").replace("warehouses: 2", "warehouses: zero")
    with pytest.raises(InvalidSpecError, match="warehouses"):
        parse_spec_text(text, "t.yaml", Path.cwd())


def test_engine_arguments_keep_only_what_tpcc_knows(tmp_path: Path):
    properties = {
        "recordcount": "1000", "mysql.host": "db", "maxexecutiontime": "30",
        "status.interval": "1", "tpcc.items": "500", "startbarrier.go": "/g",
    }  # fmt: skip
    call = EngineCall(
        target="mysql",
        workload=tpcc_workload({"kind": "tpcc", "warehouses": 2}),
        properties=properties,
        threads=8,
        json_path=tmp_path / "r.json",
        data_dir=None,
        scratch=tmp_path,
    )
    kind = KINDS["tpcc"]
    run = kind.engine_args("run", call)
    assert run[:3] == ["tpcc", "run", "mysql"]
    pairs = [run[i + 1] for i, a in enumerate(run) if a == "-p"]
    assert pairs == [
        "warehouses=2", "mysql.host=db", "maxexecutiontime=30", "status.interval=1",
        "tpcc.items=500", "startbarrier.go=/g",
    ]  # fmt: skip
    assert run[-5:] == ["-threads", "8", "-s", "-json", str(tmp_path / "r.json")]
    load = kind.engine_args("load", call)
    assert "maxexecutiontime=30" not in load and load[1] == "load"
    assert kind.engine_args("cleanup", call) == []
    assert kind.check_calls(call) == [load]
