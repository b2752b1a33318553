"""File I/O workload entries of a spec (`kind: sysbench` / `kind: fio`), validated.

    {kind: sysbench, name: NAME?, options: {file-test-mode: rndrw, …}}
    {kind: fio, name: NAME?, file: PATH}        # a job file, relative to the spec
    {kind: fio, name: NAME?, job: {rw: randread, bs: 4k, …}}   # one job, inline

Errors name the key and the allowed values; the engine checks every other option
before anything runs (`Runner.check_with_engine`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contio.errors import FileWorkloadError
from contio.workload.file_kinds import FIO_RW, SYSBENCH_MODES, read_job_file
from contio.workload.files import WorkloadRef
from contio.yaml_input import number_text

ALLOWED_KEYS = {"sysbench": ("kind", "name", "options"), "fio": ("kind", "name", "file", "job")}


def _text(key: str, value: Any) -> str | None:
    """An option value as the engine reads it; True is a bare switch (None), False drops it."""
    if isinstance(value, bool):
        return None if value else "0"
    if isinstance(value, (int, float)):
        return number_text(value)  # 1e9 and 1000.0 reach the engine as integers
    if isinstance(value, str):
        return value
    raise FileWorkloadError(f"{key}: must be a number, a string or true/false, not {value!r}")


def _options(kind: str, key: str, raw: Any) -> tuple[tuple[str, str | None], ...]:
    if not isinstance(raw, dict) or not raw:
        raise FileWorkloadError(f"{key}: must be a mapping of {kind} options to values")
    return tuple((str(k), _text(f"{key}.{k}", v)) for k, v in raw.items())


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
        if mode not in SYSBENCH_MODES:
            raise FileWorkloadError(
                f"options.file-test-mode: {mode!r} is not a mode; allowed: "
                + ", ".join(SYSBENCH_MODES)
            )
        return WorkloadRef(name or f"sysbench-{mode}", None, kind, options)
    if ("file" in entry) == ("job" in entry):
        raise FileWorkloadError("a fio workload needs exactly one of 'file' (a job file) or 'job'")
    if "file" in entry:
        path = (base_dir / Path(str(entry["file"])).expanduser()).resolve()
        if path.is_dir():
            raise FileWorkloadError(f"file: {str(path)!r} is a directory, expected a fio job file")
        if not path.is_file():
            raise FileWorkloadError(f"file: fio job file {str(path)!r} does not exist")
        read_job_file(path)  # a job file the engine cannot read is refused now, by name
        return WorkloadRef(name or path.stem, path, kind)
    options = _options(kind, "job", entry["job"])
    rw = dict(options).get("rw", dict(options).get("readwrite", "read"))
    if rw not in FIO_RW:
        raise FileWorkloadError(f"job.rw: {rw!r} is not allowed; allowed: {', '.join(FIO_RW)}")
    return WorkloadRef(name or f"fio-{rw}", None, kind, options)
