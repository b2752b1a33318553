"""The live view's ops/s so far, from the engines' progress files.

Each engine of a phase is started with `CONTIO_ENGINE_PROGRESS` naming a file beside its
result document (`progress_file`); with `-s` it appends one JSON line per status window
(`crates/engine/src/measure/progress_log.rs`): elapsed seconds, operations, ops/s. The
status text on stderr is YCSB's (or sysbench's) format for people and other tools, and
is not read here.
"""

from __future__ import annotations

import json
from pathlib import Path

PROGRESS_ENV = "CONTIO_ENGINE_PROGRESS"
_TAIL_BYTES = 4096


def progress_file(result_json: Path) -> Path:
    """Where the engine writing `result_json` writes its progress lines."""
    return result_json.with_suffix(".progress.jsonl")


def ops_per_sec_so_far(path: Path) -> float | None:
    """Ops/s since the phase started, from the last complete line of `path`; None before
    the first line (or without the file)."""
    try:
        with path.open("rb") as src:
            size = path.stat().st_size
            src.seek(max(0, size - _TAIL_BYTES))
            tail = src.read()
    except OSError:
        return None
    # The part after the last newline is a line still being written: left out.
    for line in reversed(tail.split(b"\n")[:-1]):
        try:
            return float(json.loads(line)["ops_per_sec"])
        except (ValueError, KeyError, TypeError):
            continue  # the first line of a cut tail
    return None
