"""Exports of a results folder's run phases for analysis elsewhere: CSV, Parquet, JSON.

The rows are `contio.results.load(DIR)`'s (one per cell × repetition × container),
plus `ycsb_text`: the path (relative to the folder) of that phase's YCSB-format text
summary, which stays in the folder beside the engine's JSON document, and `counted`:
whether the row's repetition counts (every container of the cell completed it,
`contio.results.repetitions`), the repetitions every figure of contio rests on.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from contio.errors import UsageError
from contio.output_files import check_output, write_output
from contio.results.folder import load
from contio.results.index import INDEX_FILE, ResultsIndex
from contio.results.repetitions import counted

FORMATS = ("csv", "parquet", "json")


def export_frame(folder: Path) -> pd.DataFrame:
    """The run phases of `folder` with the path of each phase's YCSB-format summary."""
    if not (Path(folder) / INDEX_FILE).is_file():
        raise UsageError(f"{folder} has no {INDEX_FILE}: not a contio results folder")
    frame = load(folder)
    if frame.empty:
        return frame
    index = ResultsIndex.open(Path(folder))
    try:
        members = {c["cell_key"]: int(c["members"]) for c in index.cells()}
    finally:
        index.close()
    return frame.assign(
        ycsb_text=[str(Path(p).with_suffix(".txt")) for p in frame["raw_json"]],
        counted=counted(frame, members),
    )


def export(folder: Path, fmt: str, output: Path | None = None) -> Path:
    """Write the export (default `<folder>/runs.<fmt>`); returns its path."""
    if fmt not in FORMATS:
        raise UsageError(f"--format: {fmt!r} is not a format; allowed: {', '.join(FORMATS)}")
    path = output or Path(folder) / f"runs.{fmt}"
    check_output(path)
    frame = export_frame(folder)
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise UsageError(
                f"--format parquet needs pyarrow ({exc}); pip install pyarrow"
            ) from None
    writers = {
        "csv": lambda p: frame.to_csv(p, index=False),
        "json": lambda p: frame.to_json(p, orient="records", indent=1),
        "parquet": lambda p: frame.to_parquet(p, index=False, engine="pyarrow"),
    }
    return write_output(path, writers[fmt])
