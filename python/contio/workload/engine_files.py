"""Engine properties that name a file for the engine to write: refused in a spec and in
its workload files.

contio decides where the engine writes: its results go to the run's results folder
(`-json`, the text beside it), its data to the backend's data directory, and inside a
container only those two are mounted. A property that names another file — YCSB's
`exportfile`, `measurement.raw.output_file`, `hdrhistogram.output.path` with
`hdrhistogram.fileoutput`, the start barrier's files — would have the engine write
wherever it points (any file the user running contio may write, as root any file at
all), outside what a run collects and what cleanup removes. `exporter` only picks a
format and stays accepted.
"""

from __future__ import annotations

WHY = (
    "contio decides where the engine writes (its results go to the results folder, its "
    "data to the backend's data directory); remove it"
)

ENGINE_FILE_PROPERTIES = {
    "exportfile": "names a file for the engine to write its results to",
    "measurement.raw.output_file": "names a file for the engine to write raw latencies to",
    "hdrhistogram.output.path": "names where the engine writes HDR histogram logs",
    "hdrhistogram.fileoutput": "has the engine write HDR histogram logs to files",
    "startbarrier.ready": "names a file the engine writes (contio sets its start barrier)",
    "startbarrier.go": "names a file the engine waits for (contio sets its start barrier)",
}


def engine_file_problem(key: str, value: str) -> str | None:
    """Why property `key` = `value` may not be given, or None."""
    if key not in ENGINE_FILE_PROPERTIES:
        return None
    if key == "hdrhistogram.fileoutput" and value.strip().lower() != "true":
        return None  # off (or a value the engine refuses itself): nothing written
    return f"{key} {ENGINE_FILE_PROPERTIES[key]}: {WHY}"
