"""What makes a resumed run the same experiment: the validated spec and its profile.

The fingerprint is a hash of the validated spec (profile merged, workload files
resolved) and of each workload file's content, so a resume refuses a spec or a
workload file that changed since the folder was made: completed cells would
otherwise be mixed with cells of another experiment.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from contio.errors import UsageError
from contio.experiment.spec import ExperimentSpec
from contio.results.index import INDEX_FILE, ResultsIndex


def spec_fingerprint(spec: ExperimentSpec) -> str:
    """A stable hash of what the experiment measures."""
    # The cell order is left out: it changes when cells run, not what they measure, and
    # a resume goes on in the order recorded in the folder (`contio.run.runner`).
    exclude = {"profiles", "default_profile", "description", "order"}
    data = spec.model_dump(mode="json", exclude=exclude)
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode())
    for workload in spec.workload_levels() + [m.workload for ms in spec.mixes.values() for m in ms]:
        if workload.path is not None:  # inline file I/O workloads have no file
            digest.update(workload.path.read_bytes())
    return digest.hexdigest()


def check_resumable(folder: Path, spec: ExperimentSpec, profile: str | None) -> None:
    """Refuse (exit 2) to resume `folder` with another spec or profile than it was made with."""
    if not (folder / INDEX_FILE).is_file():
        raise UsageError(f"--resume: {folder} is not a contio results folder (no {INDEX_FILE})")
    index = ResultsIndex.open(folder)
    try:
        stored_profile = index.meta("profile")
        stored = index.meta("spec_fingerprint")
    finally:
        index.close()
    if stored_profile != profile:
        fix = f"pass --profile {stored_profile}" if stored_profile else "drop --profile"
        raise UsageError(
            f"--resume: {folder} was run with profile {stored_profile!r}, not {profile!r}; {fix}"
        )
    if stored != spec_fingerprint(spec):
        raise UsageError(
            f"--resume: the spec (or a workload file) differs from the one {folder} was run "
            f"with; resume with {folder / 'spec.yaml'}"
        )
