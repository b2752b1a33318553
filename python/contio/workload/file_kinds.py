"""File I/O workload kinds: `contio-engine sysbench fileio …` and `contio-engine fio JOB`.

A spec names them as workload entries (see `docs/experiments.md`):

    {kind: sysbench, name: rndrw, options: {file-test-mode: rndrw, file-total-size: 2G}}
    {kind: fio, file: jobs/randread.fio}
    {kind: fio, name: randread-4k, job: {rw: randread, bs: 4k, size: 64M}}

Phases map onto the runner's load and run:

- sysbench: load = `prepare` (writes the files), run = `run`; `cleanup` runs when the
  load group's data is released;
- fio: load = the same job with `rw=write` and no time limit (lays out and writes every
  block of every region, with the job's `verify` headers), run = the job itself. The
  real fio runs both (`contio-engine fio` drives it), except for a job that verifies:
  that one runs on contio's own I/O core, whose verify generations tell a lost write
  from a current block (`FioKind.uses_core`).

Spec properties named `sysbench.OPTION` / `fio.OPTION` (also as factors) override the
workload's options; other properties (YCSB's) do not apply. The stop rule's time
becomes `--time` / `time_based` + `runtime`; its operation count becomes `--events`
(sysbench; fio has no operation limit and refuses it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contio.errors import FileWorkloadError
from contio.host.filesystem import parse_size
from contio.workload.files import WorkloadRef
from contio.workload.fio_job_file import job_options, job_sections
from contio.workload.fio_options import fio_option_problem

SYSBENCH_MODES = ("seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw")
SYSBENCH_READ_ONLY = ("seqrd", "rndrd")
FIO_RW = ("read", "write", "randread", "randwrite", "randrw", "rw", "readwrite")
FIO_READ_ONLY = ("read", "randread")

# Options that decide which files and blocks the load writes: cells differing in any
# of these need their own load (`contio.run.loads`).
SYSBENCH_DATASET = ("file-num", "file-total-size", "file-block-size")
FIO_DATASET = (
    "bs", "blocksize", "size", "numjobs", "filename", "directory", "offset",
    "offset_increment", "verify", "verify_generation",
)  # fmt: skip
FIO_TIME_KEYS = ("time_based", "runtime", "ramp_time")


@dataclass(frozen=True, kw_only=True)
class EngineCall:
    """What one container's engine invocation needs, whatever the kind."""

    target: str
    workload: WorkloadRef
    properties: Mapping[str, str]
    """The member's properties for this phase (spec, cell levels, stop rule)."""
    threads: int
    json_path: Path
    data_dir: Path | None
    scratch: Path
    """A directory for files the kind generates (fio job files); kept with the results."""


def has_phase(kind: Any, phase: str) -> bool:
    """Whether a workload kind (anything with `phases`) runs `phase`: False for a
    `cleanup` it does not have; a phase it does not know is a programming error."""
    if phase == "cleanup" and phase not in kind.phases:
        return False
    if phase not in kind.phases:
        raise ValueError(f"phase must be one of {kind.phases}, not {phase!r}")
    return True


def options_for(
    kind: str, workload: WorkloadRef, properties: Mapping[str, str]
) -> dict[str, str | None]:
    """The workload's options with the spec's `KIND.OPTION` properties over them."""
    merged: dict[str, str | None] = dict(workload.options)
    prefix = f"{kind}."
    for key, value in properties.items():
        if key.startswith(prefix):
            merged[key[len(prefix) :]] = value
    return merged


def _overrides(kind: str, properties: Mapping[str, str]) -> dict[str, str | None]:
    """The spec's `KIND.OPTION` properties, without the prefix."""
    prefix = f"{kind}."
    return {k[len(prefix) :]: v for k, v in properties.items() if k.startswith(prefix)}


def _stop(properties: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(seconds, operations) of the stop rule, None where it sets none."""
    seconds = properties.get("maxexecutiontime")
    operations = properties.get("operationcount")
    return (
        seconds if seconds not in (None, "0") else None,
        operations if operations not in (None, "0") else None,
    )


@dataclass(frozen=True)
class SysbenchKind:
    """sysbench fileio: prepare as the load, run as the run, cleanup on release."""

    name: str = "sysbench"
    phases: tuple[str, ...] = ("load", "run")

    def engine_args(self, phase: str, call: EngineCall) -> list[str]:
        command = {"load": "prepare", "run": "run", "cleanup": "cleanup"}[phase]
        return _sysbench_args(self.options(phase, call), command, call.json_path)

    def options(self, phase: str, call: EngineCall) -> dict[str, str | None]:
        """The `--option=value` pairs of `phase`: the workload's, the spec's, the data
        directory, and for the run the threads, status lines and stop rule."""
        options = options_for(self.name, call.workload, call.properties)
        options["file-dir"] = str(call.data_dir)
        if phase == "run":
            options["threads"] = str(call.threads)
            options["report-interval"] = "1"  # status lines for the live display
            seconds, operations = _stop(call.properties)
            if seconds or operations:
                options["time"] = seconds or "0"
                options["events"] = operations or "0"
        return options

    def check_calls(self, call: EngineCall) -> list[list[str]]:
        """`cleanup` with the run's real options (the engine checks every option, size
        and thread count, then removes files that are not there), then `prepare` and
        `run` of one block, which check what only those commands read (the run's mode,
        read/write ratio, percentile, stop)."""
        real = self.options("run", call)
        block = real.get("file-block-size", "16384")
        small = {**real, "file-num": "1", "file-total-size": block, "threads": "1"}
        if real.get("time", "10") != "0" or real.get("events", "0") != "0":
            small["events"] = "1"  # else both are 0, which the engine refuses as it should
        return [
            _sysbench_args(real, "cleanup", call.json_path),
            _sysbench_args(small, "prepare", call.json_path),
            _sysbench_args(small, "run", call.json_path),
        ]

    def writes(self, workload: WorkloadRef, properties: Mapping[str, str]) -> bool:
        mode = options_for(self.name, workload, properties).get("file-test-mode")
        return mode not in SYSBENCH_READ_ONLY

    def dataset(self, workload: WorkloadRef, properties: Mapping[str, str]) -> tuple:
        options = options_for(self.name, workload, properties)
        return tuple((k, options[k]) for k in SYSBENCH_DATASET if k in options)


FILE_KINDS = ("sysbench", "fio")
"""The kinds whose load lays files out (`laid_out_bytes`)."""
SYSBENCH_DEFAULT_TOTAL_SIZE = "2G"
"""sysbench fileio's default --file-total-size."""


def laid_out_bytes(kind: str, workload: WorkloadRef, properties: Mapping[str, str]) -> int:
    """How many bytes a file workload's load phase writes (0 when it cannot be told: a
    fio size given in percent, a job without `size`), for `contio plan`'s estimate."""
    try:
        if kind == "sysbench":
            options = options_for(kind, workload, properties)
            return parse_size(options.get("file-total-size") or SYSBENCH_DEFAULT_TOTAL_SIZE)
        if kind == "fio":
            return _fio_bytes(workload, properties)
    except ValueError:
        return 0
    return 0


_TIME_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}


def fio_run_seconds(
    workload: WorkloadRef, properties: Mapping[str, str], bytes_per_sec: float
) -> float:
    """How long a fio workload's run phase takes when it runs as its job says (for
    `contio plan`): a time-based job its `runtime`, any other its bytes at
    `bytes_per_sec`, at most its `runtime`; the longest job of the file. 0: cannot tell."""
    longest = 0.0
    for merged in _fio_jobs(workload, properties):
        limit = _seconds(merged.get("runtime"))
        if merged.get("time_based") not in (None, "0") and limit:
            longest = max(longest, limit)
            continue
        size = merged.get("size") or merged.get("filesize") or ""
        try:
            by_size = parse_size(size) / bytes_per_sec if size and not size.endswith("%") else 0.0
        except ValueError:
            by_size = 0.0
        longest = max(longest, min(by_size, limit) if limit and by_size else by_size or limit)
    return longest


def _seconds(text: str | None) -> float:
    """fio's time values: seconds, or with an s/m/h suffix; 0 when absent or unreadable."""
    if not text:
        return 0.0
    value = text.strip().lower()
    unit = value[-1] if value[-1:] in ("s", "m", "h") else ""
    try:
        return float(value[: len(value) - len(unit)]) * _TIME_UNITS[unit]
    except ValueError:
        return 0.0


def _fio_bytes(workload: WorkloadRef, properties: Mapping[str, str]) -> int:
    total = 0
    for merged in _fio_jobs(workload, properties):
        size = merged.get("size") or merged.get("filesize")
        if size and not size.endswith("%"):
            total += parse_size(size) * int(merged.get("numjobs") or 1)
    return total


def _sysbench_args(options: Mapping[str, str | None], command: str, json_path: Path) -> list[str]:
    # A bare switch (`true` in the spec) is sysbench's `--opt=on`, not the text "None".
    return [
        "sysbench",
        "fileio",
        *(f"--{k}={'on' if v is None else v}" for k, v in options.items()),
        command,
        "-json",
        str(json_path),
    ]


@dataclass(frozen=True)
class FioKind:
    """fio jobs: the job with `rw=write` as the load, the job itself as the run."""

    name: str = "fio"
    phases: tuple[str, ...] = ("load", "run")

    def engine_args(self, phase: str, call: EngineCall) -> list[str]:
        if phase == "cleanup":
            return []
        job = call.scratch / f"{call.json_path.stem}.fio"
        job.write_text(self.render(phase, call), encoding="utf-8")
        # Live status lines come from contio's core only (see crates/engine's fio::driver).
        core = ["--contio-core", "-s"] if self.uses_core(call.workload, call.properties) else []
        return ["fio", *core, str(job), "-json", str(call.json_path)]

    def uses_core(self, workload: WorkloadRef, properties: Mapping[str, str]) -> bool:
        """Whether the job runs on contio's own I/O core instead of the real fio: when
        it verifies. The core's verify headers carry a generation, so a run's read-back
        tells a lost write from a current block across the load and the run; fio's
        verify checks only that a block matches its own header."""
        return any(
            job.get("verify") not in (None, "0", "") or "verify_generation" in job
            for job in _fio_jobs(workload, properties)
        )

    def render(self, phase: str, call: EngineCall) -> str:
        """The job file the engine runs in `phase`: the workload's sections with contio's
        settings (data directory, stop rule, `fio.*` properties, load overrides)."""
        sections = job_sections(call.workload)
        overrides = _overrides(self.name, call.properties)
        _in_data_directory(sections, overrides)
        if sections[0][0] != "global":
            sections.insert(0, ("global", {}))
        # A relative `filename` is relative to `directory` (as in fio): without it, the
        # files would land in whatever directory contio was started from.
        sections[0] = ("global", {"directory": str(call.data_dir), **sections[0][1]})
        seconds, operations = _stop(call.properties)
        if operations:
            raise FileWorkloadError(
                "stop.operations: fio workloads stop by time or by their job's size; "
                "use stop rule fixed-time, or adaptive with seconds"
            )
        if phase == "run" and seconds:
            overrides.update(time_based=None, runtime=seconds)
        if phase == "run":
            overrides.update(_run_generation(sections, overrides))
        lines = []
        for name, values in sections:
            values = {**values, **overrides}
            if phase == "load":  # write every block once, however the run is limited
                for key in (*FIO_TIME_KEYS, "verify_only", "readwrite", "rw"):
                    values.pop(key, None)
                if name != "global":
                    values["rw"] = "write"
            lines.append(f"[{name}]")
            lines += [k if v is None else f"{k}={v}" for k, v in values.items()]
        return "\n".join(lines) + "\n"

    def check_calls(self, call: EngineCall) -> list[list[str]]:
        """The load with one block per job instance: checks the job, writes almost nothing.

        The job's real `size` and `offset_increment` are not checked: the engine has no
        mode that checks a job without laying its files out."""
        self.render("run", call)  # refuses a stop rule fio cannot keep, before anything runs
        job = {k: v for _, values in job_sections(call.workload) for k, v in values.items()}
        job.update(_overrides(self.name, call.properties))
        block = job.get("bs") or job.get("blocksize") or "4k"
        props = {**call.properties, "fio.size": block, "fio.offset_increment": block}
        props.pop("maxexecutiontime", None)
        props.pop("operationcount", None)
        small = dataclasses.replace(call, properties=props)
        return [self.engine_args("load", small)]

    def writes(self, workload: WorkloadRef, properties: Mapping[str, str]) -> bool:
        return any(
            job.get("rw", job.get("readwrite", "read")) not in FIO_READ_ONLY
            for job in _fio_jobs(workload, properties)
        )

    def dataset(self, workload: WorkloadRef, properties: Mapping[str, str]) -> tuple:
        overrides = _overrides(self.name, properties)
        found = []
        for name, values in job_sections(workload):
            values = {**values, **overrides}
            found.append((name, tuple((k, values[k]) for k in FIO_DATASET if k in values)))
        return tuple(found)


def _in_data_directory(
    sections: list[tuple[str, dict[str, str | None]]], overrides: Mapping[str, str | None]
) -> None:
    """Refuse a job that would write outside the data directory. The spec's checks refuse
    it first, naming the field; this holds for a job file changed since."""
    for name, values in [*sections, ("properties", dict(overrides))]:
        for key, value in values.items():
            problem = fio_option_problem(key, value)
            if problem is not None:
                raise FileWorkloadError(f"fio job [{name}] {key}: {problem}")


def _run_generation(
    sections: list[tuple[str, dict[str, str | None]]], overrides: dict[str, str | None]
) -> dict[str, str | None]:
    """`verify_generation` one above the load's, when the run writes with `verify`.

    The load writes every block with the job's generation; a run writing the same
    blocks with that generation would write identical bytes, so a lost run write would
    pass the read-back. One generation up, every block the run wrote must carry the
    run's generation, and a lost write reads back as "stale or lost write".
    """
    for merged in job_options(sections, overrides):
        verifies = merged.get("verify") not in (None, "0", "")
        # A bare `verify_only` (value None) is a switch that is on.
        checks_only = "verify_only" in merged and merged["verify_only"] != "0"
        writes = merged.get("rw", merged.get("readwrite", "read")) not in FIO_READ_ONLY
        if verifies and writes and not checks_only:
            return {"verify_generation": str(int(merged.get("verify_generation") or 1) + 1)}
    return {}


def _fio_jobs(workload: WorkloadRef, properties: Mapping[str, str]) -> list[dict[str, str | None]]:
    """Each job's options as fio applies them, the spec's `fio.*` properties over them."""
    return job_options(job_sections(workload), _overrides("fio", properties))


def named_jobs(
    workload: WorkloadRef, properties: Mapping[str, str]
) -> list[tuple[str, dict[str, str | None]]]:
    """Each job of a fio workload: its name and its options as fio applies them (with the
    spec's `fio.*` properties over them)."""
    sections = job_sections(workload)
    jobs = job_options(sections, _overrides("fio", properties))
    names = [name for name, _ in sections if name != "global"]
    return list(zip(names, jobs, strict=True))
