"""What a spec may set in a fio job or sysbench's options: files inside the backend's data
directory only, sizes the load can lay out, one line per value.

A fio job's load phase writes every block of the job's files, whatever its `rw`: a
`filename` outside the data directory (an absolute path, a `..`, a device) or a
`directory` elsewhere would have it write over a file or a device contio did not
create, and would measure that place instead of the backend. So the files are named
relative to the data directory, as plain names (the engine names them
`<job>.<n>.0` when no `filename` is given), and contio sets the directory itself:
`directory` here, sysbench's `file-dir`. A line break in a name or a value would add
lines of its own to the job file contio writes: refused as well.

The engine checks every other option when `contio plan` runs it on one block; the
job's real `size` and `offset_increment` are not in that check (it would lay out the
whole job), so they are read here as the engine reads them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

IN_DATA_DIRECTORY = (
    "allowed: a file name in the backend's data directory, without '/' (for example "
    "`data`; none: the engine names the files <job>.<n>.0)"
)
_OPTION_NAME = re.compile(r"^[A-Za-z0-9_]+$")
_JOB_NAME = re.compile(r"^[^\[\]\r\n]+$")
_SIZE = re.compile(r"^\s*([0-9]+)\s*([kmgtp]?)(i?b)?\s*$", re.IGNORECASE)
_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
SIZE_FORM = "a size such as 4096, 4k, 16KiB, 64m or 1G"
DEFAULT_BLOCK = 4096


def filename_problem(value: str | None) -> str | None:
    """Why a fio `filename` is not a plain name in the data directory, or None."""
    if value is None or not value.strip():
        return f"needs a value; {IN_DATA_DIRECTORY}"
    if value.startswith("/dev/"):
        return f"{value!r} is a device: {IN_DATA_DIRECTORY}"
    if value.startswith("/"):
        return f"{value!r} is an absolute path, outside the data directory: {IN_DATA_DIRECTORY}"
    parts = value.split("/")
    if ".." in parts:
        return f"{value!r} leads out of the data directory ('..'): {IN_DATA_DIRECTORY}"
    if "/" in value or value == ".":
        return f"{value!r} is not a file name in the data directory: {IN_DATA_DIRECTORY}"
    return None


def fio_option_problem(key: str, value: str | None) -> str | None:
    """Why a spec may not give fio option `key` this `value`, or None."""
    if not _OPTION_NAME.match(key):
        return f"{key!r} is not a fio option name (letters, digits and '_')"
    if value is not None and ("\n" in value or "\r" in value):
        return "a value is one line"
    if key == "directory":
        return (
            "contio sets the directory: the backend's data directory (one per container); "
            "leave `directory` out and name the files with `filename` relative to it"
        )
    if key == "filename":
        return filename_problem(value)
    return None


def sysbench_option_problem(key: str, value: str | None) -> str | None:
    """Why a spec may not give sysbench option `key` this `value`, or None."""
    if key == "file-dir":
        return (
            "contio sets the directory: the backend's data directory (one per container); "
            "leave `file-dir` out"
        )
    if value is not None and ("\n" in value or "\r" in value):
        return "a value is one line"
    return None


def fio_job_name_problem(name: str) -> str | None:
    """Why `name` cannot be a fio job's section name, or None."""
    if name == "global" or not _JOB_NAME.match(name):
        return f"{name!r} cannot name a fio job (one line, no '[' or ']', not 'global')"
    return None


def engine_bytes(text: str, kb_base: str | None = None) -> int | None:
    """Bytes of a fio size as fio reads it (`4k`, `16KiB`, `1G`), None if it does not.

    fio's `kb_base` (1024 unless a job sets 1000) is the base of `k`, `M`…, and `KiB`,
    `MiB`… take the other one: by default `4k` is 4096 bytes and `1MiB` 1000000."""
    found = _SIZE.match(text)
    if found is None:
        return None
    iec = (found.group(3) or "").lower() == "ib"
    base = 1000 if (str(kb_base or "1024").strip() == "1000") != iec else 1024
    return int(found.group(1)) * base ** _POWER[found.group(2).lower()]


def job_size_problems(
    jobs: Iterable[tuple[str, Mapping[str, str | None]]],
) -> list[tuple[str, str]]:
    """(option, why) for each job (`name`, its options as fio applies them) whose load
    cannot be laid out: `size` missing, unreadable or under one block, `offset_increment`
    unreadable. Each message names the job and the option."""
    problems = []
    for name, job in jobs:
        kb_base = job.get("kb_base")
        block = engine_bytes(job.get("bs") or job.get("blocksize") or "", kb_base) or DEFAULT_BLOCK
        size = job.get("size")
        if size is None:
            why = (
                "required; the load lays out `size` bytes per job instance in a fresh data "
                f"directory ({SIZE_FORM})"
            )
            problems.append(("size", f"job {name!r}: size: {why}"))
        elif (found := engine_bytes(size, kb_base)) is None:
            problems.append(("size", f"job {name!r}: size: {size!r} is not {SIZE_FORM}"))
        elif found < block:
            why = f"{size!r} holds no whole block of {block} bytes; give at least {block}"
            problems.append(("size", f"job {name!r}: size: {why}"))
        step = job.get("offset_increment")
        if step is not None and engine_bytes(step, kb_base) is None:
            problems.append(
                ("offset_increment", f"job {name!r}: offset_increment: {step!r} is not {SIZE_FORM}")
            )
    return problems
