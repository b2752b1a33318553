"""File I/O workload kinds in specs: validation naming the field and the allowed values,
the engine arguments and fio job files of each phase, and what counts as writing."""

from __future__ import annotations

from pathlib import Path

import pytest

from contio.errors import FileWorkloadError, InvalidSpecError
from contio.experiment.load import parse_spec_text
from contio.experiment.matrix import expand
from contio.workload.file_kinds import EngineCall
from contio.workload.kinds import KINDS

BASE = """
name: f
backends:
  a: {type: local-dir}
factors:
  workload:
    - WORKLOAD
stop: {rule: fixed-time, seconds: 2, repetitions: 2}
"""


def spec_with(workload: str, base_dir: Path | None = None):
    return parse_spec_text(BASE.replace("WORKLOAD", workload), "f.yaml", base_dir or Path.cwd())


def problems(workload: str) -> list[str]:
    with pytest.raises(InvalidSpecError) as info:
        spec_with(workload)
    return [str(p) for p in info.value.problems]


def test_bad_file_workloads_name_the_field_and_the_allowed_values():
    [mode] = problems("{kind: sysbench, options: {file-test-mode: rndrx}}")
    assert mode.startswith("factors.workload[0]: options.file-test-mode: 'rndrx' is not a mode")
    assert "allowed: seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw" in mode
    [rw] = problems("{kind: fio, job: {rw: randomread}}")
    assert "job.rw: 'randomread' is not allowed; allowed: read, write, randread" in rw
    [key] = problems("{kind: fio, jobs: {rw: read}}")
    assert "unknown key 'jobs'; allowed keys for fio: kind, name, file, job" in key
    [both] = problems("{kind: fio, file: a.fio, job: {rw: read}}")
    assert "exactly one of 'file'" in both
    [missing] = problems("{kind: fio, file: absent.fio}")
    assert "file: fio job file" in missing and "does not exist" in missing


def call(spec, phase_dir: Path, data_dir: Path, properties: dict[str, str]) -> EngineCall:
    [cell] = expand(spec)
    member = cell.members[0]
    return EngineCall(
        target=member.target,
        workload=member.workload,
        properties={**dict(member.properties), **properties},
        threads=4,
        json_path=phase_dir / "run-c1.json",
        data_dir=data_dir,
        scratch=phase_dir,
    )


def test_sysbench_maps_prepare_and_run_onto_load_and_run(tmp_path):
    spec = spec_with("{kind: sysbench, options: {file-test-mode: rndrd, file-total-size: 8M}}")
    [cell] = expand(spec)
    assert cell.read_only and cell.level["workload"] == "sysbench-rndrd"
    run = KINDS["sysbench"].engine_args(
        "run", call(spec, tmp_path, tmp_path / "d", spec.stop.engine_properties())
    )
    assert run[:2] == ["sysbench", "fileio"] and run[-3:] == [
        "run",
        "-json",
        str(tmp_path / "run-c1.json"),
    ]
    assert {"--file-test-mode=rndrd", "--file-total-size=8M", f"--file-dir={tmp_path / 'd'}",
            "--threads=4", "--time=2", "--events=0"} <= set(run)  # fmt: skip
    load = KINDS["sysbench"].engine_args("load", call(spec, tmp_path, tmp_path / "d", {}))
    assert "prepare" in load and "--threads=4" not in load


def test_fio_loads_with_writes_and_runs_the_job_with_the_stop_rule(tmp_path):
    job = tmp_path / "mixed.fio"
    job.write_text("[global]\nbs=16k\nsize=1m\n\n[reader]\nrw=randread\n[writer]\nrw=randwrite\n")
    spec = spec_with("{kind: fio, file: mixed.fio}", tmp_path)
    [cell] = expand(spec)
    assert not cell.read_only and cell.level["workload"] == "mixed"
    kind = KINDS["fio"]
    engine_call = call(
        spec, tmp_path, tmp_path / "d", {**spec.stop.engine_properties(), "fio.bs": "4k"}
    )
    run = kind.render("run", engine_call)
    assert run.splitlines()[:2] == ["[global]", f"directory={tmp_path / 'd'}"]
    assert "[reader]\nbs=4k" not in run and "rw=randread\nbs=4k\ntime_based\nruntime=2" in run
    load = kind.render("load", engine_call)
    assert "runtime" not in load and load.count("rw=write") == 2 and "randread" not in load
    args = kind.engine_args("run", engine_call)
    assert args[0] == "fio" and "--contio-core" not in args  # the real fio runs it
    assert args[-2:] == ["-json", str(engine_call.json_path)]
    verifying = call(
        spec, tmp_path, tmp_path / "d", {**spec.stop.engine_properties(), "fio.verify": "crc32c"}
    )
    assert kind.engine_args("run", verifying)[1:3] == ["--contio-core", "-s"]
    with pytest.raises(FileWorkloadError, match=r"stop.operations"):
        kind.render("run", call(spec, tmp_path, tmp_path / "d", {"operationcount": "100"}))
    # The engine check before anything runs refuses it too (exit 2 naming the cell).
    with pytest.raises(FileWorkloadError, match=r"stop.operations"):
        kind.check_calls(call(spec, tmp_path, tmp_path / "d", {"operationcount": "100"}))


def test_a_read_only_fio_job_shares_its_load_and_a_writing_one_does_not():
    reads = spec_with("{kind: fio, name: j, job: {rw: randread, size: 1m}}")
    writes = spec_with("{kind: fio, name: j, job: {rw: randwrite, size: 1m}}")
    assert expand(reads)[0].read_only and not expand(writes)[0].read_only
    # Same job name and size: the same files (DIRECTORY/j.0.0), so one load serves both.
    assert expand(reads)[0].load_key() == expand(writes)[0].load_key()
    bigger = spec_with("{kind: fio, name: j, job: {rw: randread, size: 2m}}")
    assert expand(bigger)[0].load_key() != expand(reads)[0].load_key()


@pytest.mark.parametrize(
    ("job", "load_generation", "run_generation"),
    [
        ("{rw: randwrite, size: 1m, verify: crc32c}", None, "2"),
        ("{rw: randrw, size: 1m, verify: crc32c, verify_generation: 5}", "5", "6"),
        ("{rw: randread, size: 1m, verify: crc32c}", None, None),
        ("{rw: read, size: 1m, verify: crc32c, verify_only: 1}", None, None),
        ("{rw: randwrite, size: 1m}", None, None),
    ],
)
def test_a_verifying_run_writes_one_generation_above_its_load(
    tmp_path, job, load_generation, run_generation
):
    # Same generation in load and run: a lost run write would read back as the load's
    # identical block and pass.
    spec = spec_with(f"{{kind: fio, name: j, job: {job}}}")
    engine_call = call(spec, tmp_path, tmp_path / "d", {})

    def generation(text: str) -> str | None:
        found = [line.split("=", 1)[1] for line in text.splitlines()
                 if line.startswith("verify_generation=")]  # fmt: skip
        assert len(set(found)) <= 1
        return found[0] if found else None

    assert generation(KINDS["fio"].render("load", engine_call)) == load_generation
    assert generation(KINDS["fio"].render("run", engine_call)) == run_generation


def test_a_fio_job_s_relative_filename_lives_in_the_data_directory(tmp_path):
    # Without `directory`, fio (and the engine) resolve a relative filename against the
    # current directory: the files would land wherever contio was started from.
    job = "{rw: read, size: 1m, numjobs: 3, filename: shared}"
    spec = spec_with(f"{{kind: fio, name: n-to-1, job: {job}}}", tmp_path)
    data_dir = tmp_path / "d"
    run = KINDS["fio"].render("run", call(spec, tmp_path, data_dir, {}))
    assert f"directory={data_dir}" in run, run
