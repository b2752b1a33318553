"""A fio job file read as fio reads it: its sections in order (`read_job_file`), an
inline workload as `[global]` plus one job (`job_sections`), and each job's options
as fio applies them (`job_options`).
"""

from __future__ import annotations

import configparser
from collections.abc import Mapping
from pathlib import Path

from contio.errors import FileWorkloadError
from contio.input_files import InputFileProblem, read_input_text
from contio.workload.files import WorkloadRef


def job_options(
    sections: list[tuple[str, dict[str, str | None]]], overrides: Mapping[str, str | None]
) -> list[dict[str, str | None]]:
    """Each job section's options as fio applies them: `[global]`'s, the job's own, then
    contio's overrides."""
    shared = sections[0][1] if sections[0][0] == "global" else {}
    return [{**shared, **values, **overrides} for name, values in sections if name != "global"]


def job_sections(workload: WorkloadRef) -> list[tuple[str, dict[str, str | None]]]:
    """The job's sections in order: the job file's, or `[global]` + one job for inline."""
    if workload.path is None:
        return [("global", {}), (workload.name, dict(workload.options))]
    return read_job_file(workload.path)


def read_job_file(path: Path) -> list[tuple[str, dict[str, str | None]]]:
    """The sections of a fio job file, in order; `FileWorkloadError` naming the file and
    line when it is not one (not UTF-8 text, an option before any `[section]`)."""
    parser = configparser.ConfigParser(
        allow_no_value=True, strict=False, interpolation=None, comment_prefixes=("#", ";"),
        default_section="\0none",
    )  # fmt: skip
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep the key's case
    where = f"fio job file {str(path)!r}"
    try:
        text = read_input_text(path, "a fio job file (INI text)")
    except InputFileProblem as exc:
        raise FileWorkloadError(f"file: fio job file {exc}") from None
    try:
        parser.read_string(text, str(path))
    except configparser.MissingSectionHeaderError as exc:
        raise FileWorkloadError(
            f"{where}: line {exc.lineno}: option {exc.line.strip()!r} outside any section; "
            "start the file with [global] or a [job name] line"
        ) from None
    except configparser.Error as exc:
        raise FileWorkloadError(f"{where}: {exc.message}") from None
    if not parser.sections():
        raise FileWorkloadError(f"{where} has no [section]: it defines no job")
    if all(name == "global" for name in parser.sections()):
        raise FileWorkloadError(
            f"{where} has only a [global] section: it defines no job; add a [job name] "
            "section with the job's options"
        )
    return [(name, dict(parser[name])) for name in parser.sections()]
