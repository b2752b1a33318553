"""File I/O workload entries of a spec (`kind: sysbench` / `kind: fio`), validated.

    {kind: sysbench, name: NAME?, options: {file-test-mode: rndrw, …}}
    {kind: fio, name: NAME?, file: PATH}        # a job file, relative to the spec
    {kind: fio, name: NAME?, job: {rw: randread, bs: 4k, …}}   # one job, inline

Errors name the key and the allowed values. A job's files stay in the backend's data
directory (`contio.workload.fio_options`); the engine checks every other option before
anything runs (`contio.run.phase_calls.check_with_engine`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from contio.errors import FileWorkloadError
from contio.input_files import resolved
from contio.workload.file_kinds import FIO_RW, SYSBENCH_MODES
from contio.workload.files import WorkloadRef
from contio.workload.fio_job_file import read_job_file
from contio.workload.fio_options import (
    fio_job_name_problem,
    fio_option_problem,
    sysbench_option_problem,
)
from contio.yaml_input import number_text

ALLOWED_KEYS = {"sysbench": ("kind", "name", "options"), "fio": ("kind", "name", "file", "job")}


def _text(key: str, value: Any) -> str | None:
    """An option value as the engine reads it; True is a bare switch (None), False drops it."""
    if isinstance(value, bool):
        return None if value else "0"
    if isinstance(value, float) and not math.isfinite(value):
        raise FileWorkloadError(f"{key}: {value} is not a finite number")
    if isinstance(value, (int, float)):
        return number_text(value)  # 1e9 and 1000.0 reach the engine as integers
    if isinstance(value, str):
        return value
    raise FileWorkloadError(f"{key}: must be a number, a string or true/false, not {value!r}")


def _options(kind: str, key: str, raw: Any) -> tuple[tuple[str, str | None], ...]:
    if isinstance(raw, dict) and not raw:
        raise FileWorkloadError(
            f"{key}: has no options: give the {kind} job's options ({{rw: read}})"
        )
    if not isinstance(raw, dict):
        raise FileWorkloadError(f"{key}: must be a mapping of {kind} options to values")
    options = tuple((str(k), _text(f"{key}.{k}", v)) for k, v in raw.items())
    allowed = fio_option_problem if kind == "fio" else sysbench_option_problem
    for option, value in options:
        problem = allowed(option, value)
        if problem is not None:
            raise FileWorkloadError(f"{key}.{option}: {problem}")
    return options


def _check_job_file(path: Path, sections: list[tuple[str, dict[str, str | None]]]) -> None:
    """A job file's sections keep their files in the data directory (as an inline job)."""
    for section, values in sections:
        problem = fio_job_name_problem(section) if section != "global" else None
        if problem is not None:
            raise FileWorkloadError(f"file: {str(path)!r}: [{section}]: {problem}")
        for option, value in values.items():
            problem = fio_option_problem(option, value)
            if problem is not None:
                raise FileWorkloadError(f"file: {str(path)!r}: [{section}] {option}: {problem}")


def file_workload(entry: dict[str, Any], base_dir: Path) -> WorkloadRef:
    """The `WorkloadRef` of a `sysbench` or `fio` entry."""
    kind = entry["kind"]
    extra = sorted(set(entry) - set(ALLOWED_KEYS[kind]))
    if extra:
        allowed = ", ".join(ALLOWED_KEYS[kind])
        raise FileWorkloadError(f"unknown key {extra[0]!r}; allowed keys for {kind}: {allowed}")
    name = entry.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        raise FileWorkloadError(f"name: must be a non-empty string, not {name!r}")
    if kind == "sysbench":
        options = _options(kind, "options", entry.get("options"))
        mode = dict(options).get("file-test-mode")
        if "file-test-mode" not in dict(options):
            raise FileWorkloadError(
                "options.file-test-mode: required, but missing; allowed: "
                + ", ".join(SYSBENCH_MODES)
            )
        if mode not in SYSBENCH_MODES:
            raise FileWorkloadError(
                f"options.file-test-mode: {mode!r} is not a mode; allowed: "
                + ", ".join(SYSBENCH_MODES)
            )
        return WorkloadRef(name or f"sysbench-{mode}", None, kind, options)
    if ("file" in entry) == ("job" in entry):
        raise FileWorkloadError("a fio workload needs exactly one of 'file' (a job file) or 'job'")
    if "file" in entry:
        path = resolved(base_dir / Path(str(entry["file"])).expanduser())
        # A job file the engine cannot read, or that writes outside the data directory,
        # is refused now, by name.
        _check_job_file(path, read_job_file(path))
        return WorkloadRef(name or path.stem, path, kind)
    options = _options(kind, "job", entry["job"])
    rw = dict(options).get("rw", dict(options).get("readwrite", "read"))
    if rw not in FIO_RW:
        raise FileWorkloadError(f"job.rw: {rw!r} is not allowed; allowed: {', '.join(FIO_RW)}")
    job_name = name or f"fio-{rw}"
    problem = fio_job_name_problem(job_name)  # the inline job's section in the job file
    if problem is not None:
        raise FileWorkloadError(f"name: {problem}")
    return WorkloadRef(job_name, None, kind, options)
