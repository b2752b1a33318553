"""Workload kinds: how a cell's workload becomes `contio-engine` arguments.

`ycsb` is the kind every spec has today (`contio-engine load|run TARGET -P FILE …`).
File I/O kinds (`contio-engine sysbench|fio`) register here when the engine has them:
one `WorkloadKind` each, and nothing else in the runner changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class WorkloadKind(Protocol):
    """Turns one phase of one container into engine arguments (after the binary)."""

    name: str
    phases: tuple[str, ...]
    """The phases of a cell, in order; the first is the load (data set) phase."""

    def engine_args(
        self,
        phase: str,
        target: str,
        workload_file: Path,
        properties: Mapping[str, str],
        threads: int,
        json_path: Path,
    ) -> list[str]: ...


@dataclass(frozen=True)
class YcsbKind:
    """YCSB core workloads: a load phase, then run phases."""

    name: str = "ycsb"
    phases: tuple[str, ...] = ("load", "run")

    def engine_args(
        self,
        phase: str,
        target: str,
        workload_file: Path,
        properties: Mapping[str, str],
        threads: int,
        json_path: Path,
    ) -> list[str]:
        """`load|run TARGET -P FILE -p k=v… -threads N -s -json PATH`; later `-p` win."""
        if phase not in self.phases:
            raise ValueError(f"phase must be one of {self.phases}, not {phase!r}")
        args = [phase, target, "-P", str(workload_file)]
        for key, value in properties.items():
            args += ["-p", f"{key}={value}"]
        # -s: status lines on stderr, which the live display reads for ops/s so far.
        return [*args, "-threads", str(threads), "-s", "-json", str(json_path)]


KINDS: dict[str, WorkloadKind] = {"ycsb": YcsbKind()}


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
