"""Workload files: the ones shipped in the package, found by name, or a user's own by path."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

from contio.input_files import InputFileProblem, read_input_text, resolved

PACKAGED_DIR = "ycsb"


@dataclass(frozen=True)
class WorkloadRef:
    """A workload a spec names: its short name, and where its file is.

    YCSB workloads are property files. File I/O workloads (`kind` `sysbench` or
    `fio`, see `contio.workload.kinds`) carry their tool's options instead, and a fio
    job file as `path` when the spec names one (else `path` is None).
    """

    name: str
    path: Path | None
    kind: str = "ycsb"
    options: tuple[tuple[str, str | None], ...] = ()
    """The tool's options (`file-test-mode` → `rndrw`, `bs` → `4k`; None: a bare flag), spec order."""


def packaged_workloads() -> dict[str, Path]:
    """The workload files shipped with contio, by file name, sorted."""
    root = files("contio.workload") / PACKAGED_DIR
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for entry in root.iterdir():
        if entry.is_file() and not entry.name.startswith((".", "_")):
            # The package is installed as plain files (maturin wheel or source tree),
            # so as_file returns the file itself rather than a temporary copy.
            with as_file(entry) as path:
                found[entry.name] = Path(path)
    return dict(sorted(found.items()))


def looks_like_path(value: str) -> bool:
    """Whether a workload entry is meant as a path rather than a packaged name."""
    return "/" in value or value.startswith(".") or value.endswith(".properties")


def resolve_workload(value: str, base_dir: Path) -> WorkloadRef:
    """Resolve a spec's workload entry: a packaged name, or a path relative to `base_dir`.

    Raises `LookupError` with a message that lists the allowed names.
    """
    packaged = packaged_workloads()
    if value in packaged:
        return WorkloadRef(value, packaged[value])
    if looks_like_path(value):
        path = resolved(base_dir / Path(value).expanduser())
        try:
            read_input_text(path, "a text file of key=value lines")
        except InputFileProblem as exc:
            raise LookupError(f"workload file {exc}") from None
        return WorkloadRef(path.name, path)
    allowed = ", ".join(packaged) if packaged else "(no packaged workloads found)"
    raise LookupError(
        f"{value!r} is not a known workload; allowed: {allowed}, or a path to a workload file"
    )
