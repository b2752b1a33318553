"""The `cassandra-stress` workload kind: its spec entry is validated by key, it runs on
`cassandra` only (the error names the field and the allowed target), the load writes
the population once and the run hands `contio-engine cstress` cassandra-stress's own
options with the stop rule and the server."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import FileWorkloadError, InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.workload.cstress_kind import cstress_workload
from contio.workload.file_kinds import EngineCall
from contio.workload.kinds import KINDS

SPEC = """
name: t
runtime: {type: docker}
properties: {recordcount: 5000}
factors:
  target: [TARGET]
  workload: [{kind: cassandra-stress, mode: MODE}]
"""


def spec(target: str = "cassandra", mode: str = "write") -> str:
    return SPEC.replace("TARGET", target).replace("MODE", mode)


def test_an_entry_needs_a_mode_and_known_keys():
    ref = cstress_workload({"kind": "cassandra-stress", "mode": "read"})
    assert (ref.name, ref.kind, ref.path) == ("cassandra-stress-read", "cassandra-stress", None)
    mixed = cstress_workload(
        {"kind": "cassandra-stress", "mode": "mixed", "ratio": {"write": 1, "read": 3}}
    )
    assert dict(mixed.options)["ratio"] == "write=1,read=3"
    with pytest.raises(FileWorkloadError, match=r"mode: one of write, read, mixed, not 'scan'"):
        cstress_workload({"kind": "cassandra-stress", "mode": "scan"})
    with pytest.raises(FileWorkloadError, match=r"unknown key 'n'; allowed keys .*population"):
        cstress_workload({"kind": "cassandra-stress", "mode": "write", "n": 10})
    with pytest.raises(FileWorkloadError, match="only mode mixed takes a ratio"):
        cstress_workload({"kind": "cassandra-stress", "mode": "read", "ratio": {"read": 1}})
    with pytest.raises(FileWorkloadError, match=r"ratio\.read: a weight"):
        cstress_workload({"kind": "cassandra-stress", "mode": "mixed", "ratio": {"read": -1}})
    with pytest.raises(FileWorkloadError, match=r"consistency: one of .*LOCAL_ONE"):
        cstress_workload({"kind": "cassandra-stress", "mode": "write", "consistency": "SOME"})
    for bad in (0, "10", 1.5, True):
        with pytest.raises(FileWorkloadError, match="population"):
            cstress_workload({"kind": "cassandra-stress", "mode": "write", "population": bad})


@pytest.mark.parametrize("mode", ["write", "read", "mixed"])
def test_cassandra_runs_it_as_a_database_member(mode: str):
    [cell] = expand(parse_spec_text(spec(mode=mode), "t.yaml", Path.cwd()))
    [member] = cell.members
    assert member.kind == "cassandra-stress" and member.database
    assert member.writes is (mode != "read")
    assert f"target=cassandra · workload=cassandra-stress-{mode}" in cell.label


@pytest.mark.parametrize("target", ["mariadb", "lsm", "null"])
def test_other_targets_are_refused_naming_the_field_and_the_allowed_one(target: str):
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(spec(target), "t.yaml", Path.cwd())
    found = [str(p) for p in info.value.problems]
    assert any(
        p.startswith("factors.target[0]: ")
        and "(kind cassandra-stress)" in p
        and "allowed targets: cassandra" in p
        for p in found
    ), found


def test_a_mix_member_names_its_own_field():
    text = """
name: t
runtime: {type: docker}
mixes:
  pair: [{workload: {kind: cassandra-stress, mode: write}, target: mariadb}]
factors: {mix: [pair]}
"""
    with pytest.raises(InvalidSpecError) as info:
        parse_spec_text(text, "t.yaml", Path.cwd())
    found = [str(p) for p in info.value.problems]
    assert any(p.startswith("mixes.pair[0].target: 'mariadb' cannot run") for p in found), found


def test_a_bad_entry_is_refused_in_the_spec():
    with pytest.raises(InvalidSpecError, match="mode: one of write, read, mixed"):
        parse_spec_text(spec(mode="delete"), "t.yaml", Path.cwd())


def test_reads_and_writes_of_one_population_share_a_load():
    text = spec(mode="read").replace(
        "[{kind: cassandra-stress, mode: read}]",
        "[{kind: cassandra-stress, mode: read}, {kind: cassandra-stress, mode: write},"
        " {kind: cassandra-stress, mode: write, population: 10, name: small}]",
    )
    read, write, other = expand(parse_spec_text(text, "t.yaml", Path.cwd()))
    assert read.load_key() == write.load_key() != other.load_key()
    assert read.read_only and not write.read_only


def call(tmp_path: Path, workload: dict, **properties: str) -> EngineCall:
    return EngineCall(
        target="cassandra",
        workload=cstress_workload(workload),
        properties={"cassandra.host": "10.0.0.2", "cassandra.port": "9042", **properties},
        threads=8,
        json_path=tmp_path / "r.json",
        data_dir=None,
        scratch=tmp_path,
    )


def test_the_load_writes_the_population_once_in_sequence(tmp_path: Path):
    c = call(tmp_path, {"kind": "cassandra-stress", "mode": "read"}, recordcount="5000",
             maxexecutiontime="30", **{"status.interval": "1", "startbarrier.go": "/g"})  # fmt: skip
    kind = KINDS["cassandra-stress"]
    load = kind.engine_args("load", c)
    assert load == [
        "cstress", "write", "cassandra", "n=5000", "-pop", "seq=1..5000",
        "-col", "n=FIXED(5)", "size=FIXED(34)", "-rate", "threads=8",
        "-node", "10.0.0.2", "-port", "native=9042",
        "-p", "status.interval=1", "-p", "startbarrier.go=/g",
        "-s", "-json", str(tmp_path / "r.json"),
    ]  # fmt: skip
    assert kind.check_calls(c) == [load]
    assert kind.engine_args("cleanup", c) == []


def test_the_run_follows_the_mode_and_the_stop_rule(tmp_path: Path):
    kind = KINDS["cassandra-stress"]
    read = kind.engine_args(
        "run", call(tmp_path, {"kind": "cassandra-stress", "mode": "read", "population": 300},
                    maxexecutiontime="30", operationcount="0", recordcount="5000")
    )  # fmt: skip
    assert read[:4] == ["cstress", "read", "cassandra", "duration=30s"]
    assert read[read.index("-pop") + 1] == "dist=GAUSSIAN(1..300)"
    mixed = kind.engine_args(
        "run",
        call(tmp_path, {"kind": "cassandra-stress", "mode": "mixed", "consistency": "QUORUM",
                        "ratio": {"write": 1, "read": 2}, "columns": 2, "column_size": 8},
             operationcount="900"),
    )  # fmt: skip
    assert mixed[:6] == [
        "cstress", "mixed", "cassandra", "n=900", "cl=QUORUM", "ratio(write=1,read=2)",
    ]  # fmt: skip
    assert mixed[mixed.index("-col") + 1 : mixed.index("-col") + 3] == [
        "n=FIXED(2)", "size=FIXED(8)",
    ]  # fmt: skip
    write = kind.engine_args("run", call(tmp_path, {"kind": "cassandra-stress", "mode": "write"}))
    assert write[3] == "n=1000000"  # no stop rule, no recordcount: the real tool's population
    assert write[write.index("-pop") + 1] == "seq=1..1000000"
