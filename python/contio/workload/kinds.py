"""Workload kinds: how a cell's workload becomes `contio-engine` arguments.

`ycsb` (`contio-engine load|run TARGET -P FILE …`) is the default; the file I/O kinds
`sysbench` and `fio` (`contio-engine sysbench|fio`, see `contio.workload.file_kinds`),
the TPC-C-like `tpcc` (`contio-engine tpcc`, see `contio.workload.tpcc_kind`) and the
cassandra-stress-like `cassandra-stress` (`contio-engine cstress`, see
`contio.workload.cstress_kind`) are the others. One `WorkloadKind` each; the runner only calls this interface.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from contio.errors import WorkloadPropertyError
from contio.workload.cstress_kind import CstressKind
from contio.workload.file_kinds import EngineCall, FioKind, SysbenchKind, has_phase
from contio.workload.files import WorkloadRef
from contio.workload.tpcc_kind import TpccKind


class WorkloadKind(Protocol):
    """Turns one phase of one container into engine arguments (after the binary)."""

    @property
    def name(self) -> str:
        """The kind's name in a spec (`kind:`)."""
        ...

    @property
    def phases(self) -> tuple[str, ...]:
        """The phases of a cell, in order; the first is the load (data set) phase."""
        ...

    def engine_args(self, phase: str, call: EngineCall) -> list[str]:
        """Arguments for `phase` (`load`, `run`; `cleanup` gives [] when there is none)."""
        ...

    def check_calls(self, call: EngineCall) -> list[list[str]]:
        """Engine invocations, in order, that write almost nothing and that the engine
        refuses (exit 2) when the workload, its options or the cell's values are bad:
        the real values wherever that costs nothing (thread counts, sizes, counts)."""
        ...

    def writes(self, workload: WorkloadRef, properties: Mapping[str, str]) -> bool:
        """Whether the run phase changes the loaded data."""
        ...

    def dataset(self, workload: WorkloadRef, properties: Mapping[str, str]) -> tuple:
        """What the load phase writes (cells with equal datasets share a load)."""
        ...


FILE_KIND_PREFIXES = ("sysbench.", "fio.")


@dataclass(frozen=True)
class YcsbKind:
    """YCSB core workloads: a load phase, then run phases."""

    name: str = "ycsb"
    phases: tuple[str, ...] = ("load", "run")

    def engine_args(self, phase: str, call: EngineCall) -> list[str]:
        """`load|run TARGET -P FILE -p k=v… -threads N -s -json PATH`; later `-p` win."""
        if not has_phase(self, phase):
            return []
        assert call.workload.path is not None  # YCSB workloads are files
        args = [phase, call.target, "-P", str(call.workload.path)]
        for key, value in call.properties.items():
            if not key.startswith(FILE_KIND_PREFIXES):  # options of file kinds
                args += ["-p", f"{key}={value}"]
        # -s: status lines on stderr, which the live display reads for ops/s so far.
        return [*args, "-threads", str(call.threads), "-s", "-json", str(call.json_path)]

    def check_calls(self, call: EngineCall) -> list[list[str]]:
        """A load of at most one record with the real recordcount, insertstart and thread
        count: the engine refuses their bad values, and one record is enough to open
        the target and exercise every property."""
        assert call.workload.path is not None
        merged = {**read_properties(call.workload.path), **call.properties}
        props = dict(call.properties)
        one = _at_most_one_record(merged)
        if one is not None:
            props["insertcount"] = one
        return [self.engine_args("load", dataclasses.replace(call, properties=props))]

    def writes(self, workload: WorkloadRef, properties: Mapping[str, str]) -> bool:
        assert workload.path is not None
        return writes({**read_properties(workload.path), **properties})

    def dataset(self, workload: WorkloadRef, properties: Mapping[str, str]) -> tuple:
        return ()  # `contio.experiment.matrix` keys YCSB data sets by target and data properties


YCSB_ALL_RECORDS = 2**31 - 1
"""What `recordcount: 0` means to YCSB (and the engine): as many as an int holds."""


def _at_most_one_record(merged: Mapping[str, str]) -> str | None:
    """`insertcount` for a check load ("1"), or None to pass the real values on when
    they do not fit together or are not integers: the engine then refuses them with
    its own message. `WorkloadPropertyError` when the real load would insert nothing."""
    try:
        records = int(merged.get("recordcount", "0")) or YCSB_ALL_RECORDS
        start = int(merged.get("insertstart", "0"))
        count = int(merged["insertcount"]) if "insertcount" in merged else records - start
    except ValueError:
        return None
    if min(records, start, count) < 0 or start + count > records:
        return None
    if count == 0:
        # The engine, as YCSB, reads an operation count of 0 as "no limit".
        raise WorkloadPropertyError(
            f"insertcount: the load would insert no record (insertstart {start}, recordcount "
            f"{records}) and an insert count of 0 means no limit, so it would never end; "
            "raise recordcount above insertstart, or set insertcount to at least 1"
        )
    return "1"


KINDS: dict[str, WorkloadKind] = {
    "ycsb": YcsbKind(),
    "sysbench": SysbenchKind(),
    "fio": FioKind(),
    "tpcc": TpccKind(),
    "cassandra-stress": CstressKind(),
}

SERVER_KINDS = ("ycsb", "tpcc", "cassandra-stress")
"""Kinds that drive a target (a database server for database targets); the file kinds
work on files."""


def kind_names() -> list[str]:
    """Kinds a spec may name."""
    return list(KINDS)


def read_properties(path: Path) -> dict[str, str]:
    """The `key=value` lines of a YCSB workload file (Java properties, the simple subset)."""
    found: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            key, _, value = line.partition(":")
        found[key.strip()] = value.strip()
    return found


# The proportions of operations that change data, with YCSB CoreWorkload's defaults.
WRITING_PROPORTIONS: Mapping[str, str] = {
    "updateproportion": "0.05",
    "insertproportion": "0",
    "readmodifywriteproportion": "0",
    "deleteproportion": "0",
}


def writes(properties: Mapping[str, str]) -> bool:
    """Whether a YCSB run with these properties changes the loaded data."""
    for key, default in WRITING_PROPORTIONS.items():
        try:
            if float(properties.get(key, default)) > 0:
                return True
        except ValueError:
            return True  # unreadable: assume it writes (the engine refuses it anyway)
    return False
