"""Checks of what each container of a cell runs, on its merged properties (the workload
file's, the spec's, the cell's property levels): loads and runs that would never end,
and fio jobs whose load cannot be laid out.

The engine's check (`contio.run.phase_calls.check_with_engine`) loads one record or
one block with the real values of everything else, so it cannot see these: YCSB reads
`recordcount: 0` (or none) as 2^31 - 1 records, an `operationcount` of 0 with no
`maxexecutiontime` as no limit at all, and a fio job's real `size` is only read when
the whole job is laid out. Each problem names the field that set the value.
"""

from __future__ import annotations

from contio.errors import SpecError
from contio.experiment.matrix import Cell, Member
from contio.experiment.spec import ExperimentSpec, engine_value
from contio.workload.engine_files import engine_file_problem
from contio.workload.file_kinds import named_jobs
from contio.workload.fio_options import job_size_problems
from contio.workload.kinds import read_properties

NEVER_ENDS = "a load that does not end here"


def member_problems(spec: ExperimentSpec, cell: Cell, member: Member) -> list[SpecError]:
    """Every problem of one distinct member of `cell`."""
    if member.kind == "ycsb":
        return (
            _file_problems(spec, cell, member)
            + _record_problems(spec, cell, member)
            + _operation_problems(spec, cell, member)
        )
    if member.kind == "fio":
        properties = dict(member.properties)
        return [
            SpecError(
                _property_path(spec, f"fio.{option}", properties.get(f"fio.{option}"))
                or workload_path(spec, cell, member),
                message,
            )
            for option, message in job_size_problems(named_jobs(member.workload, properties))
        ]
    return []


def _file_problems(spec: ExperimentSpec, cell: Cell, member: Member) -> list[SpecError]:
    """A workload file's properties naming a file for the engine to write (the spec's
    own are refused where they are given)."""
    if member.workload.path is None:
        return []
    problems = []
    for key, value in read_properties(member.workload.path).items():
        problem = engine_file_problem(key, value)
        if problem is not None:
            where = workload_path(spec, cell, member)
            problems.append(
                SpecError(where, f"workload file {member.workload.path.name!r}: {problem}")
            )
    return problems


def _integer(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None  # not an integer: the engine refuses it, with its own message


def _record_problems(spec: ExperimentSpec, cell: Cell, member: Member) -> list[SpecError]:
    merged = member.merged_properties()
    text = merged.get("recordcount")
    records = _integer(text) if text is not None else 0
    if records != 0:
        return []
    given = "is 0" if text is not None else "is not set"
    return [
        SpecError(
            _origin(spec, cell, member, "recordcount", text),
            f"{_whose(spec, member, 'recordcount', text)}recordcount {given}: YCSB reads that as 2^31 - 1 records, {NEVER_ENDS}; "
            "give recordcount of at least 1",
        )
    ]


def _operation_problems(spec: ExperimentSpec, cell: Cell, member: Member) -> list[SpecError]:
    """Under the `workload` stop rule, a run phase needs an operation count or a time."""
    if spec.stop.rule != "workload":
        return []  # the rule sets operationcount or maxexecutiontime itself
    merged = member.merged_properties()
    operations = _integer(merged.get("operationcount", "0"))
    try:
        seconds = float(merged.get("maxexecutiontime", "0"))
    except ValueError:
        return []
    if operations != 0 or seconds > 0:
        return []
    text = merged.get("operationcount")
    given = "is 0" if text is not None else "is not set"
    return [
        SpecError(
            _origin(spec, cell, member, "operationcount", text),
            f"{_whose(spec, member, 'operationcount', text)}operationcount {given} (no limit) and maxexecutiontime is not set: the run "
            "phase would never end; give operationcount of at least 1, a maxexecutiontime, "
            "or a stop rule (`stop: {rule: fixed-time, seconds: 30}`)",
        )
    ]


def _origin(spec: ExperimentSpec, cell: Cell, member: Member, key: str, text: str | None) -> str:
    """The field that set `key` to `text` for `member`: a property, else its workload."""
    return _property_path(spec, key, text) or workload_path(spec, cell, member)


def _whose(spec: ExperimentSpec, member: Member, key: str, text: str | None) -> str:
    """`workload file X: ` when the workload file, not a property, set `key`."""
    if _property_path(spec, key, text) is not None or member.workload.path is None:
        return ""
    return f"workload file {member.workload.path.name!r}: "


def _property_path(spec: ExperimentSpec, key: str, text: str | None) -> str | None:
    if text is None:
        return None
    if key in spec.properties:
        return f"properties.{key}"
    for i, level in enumerate(spec.factors.properties.get(key, [])):
        if engine_value(level) == text:
            return f"factors.properties.{key}[{i}]"
    return None


def workload_path(spec: ExperimentSpec, cell: Cell, member: Member) -> str:
    """Where the spec names `member`'s workload: its mix member, or the workload factor."""
    mix = cell.level.get("mix")
    if mix is not None:
        for j, part in enumerate(spec.mixes[mix]):
            if part.workload == member.workload:
                return f"mixes.{mix}[{j}].workload"
    for field, levels in (
        ("factors.workload", spec.factors.workload),
        ("workloads", spec.workloads),
    ):
        if levels is not None and member.workload in levels:
            return f"{field}[{levels.index(member.workload)}]"
    return "factors.workload"
