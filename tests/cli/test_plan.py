"""`contio plan`: cells, provisioning and duration, and nothing run or made."""

from __future__ import annotations

import csv
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from contio.cli.run import load_spec
from contio.engine.result import read_result
from contio.run.identity import spec_fingerprint
from contio.run.measured_prices import measured_phases

REPO = Path(__file__).resolve().parents[2]


def contio(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contio", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_plan_prints_cells_provisioning_and_duration_and_runs_nothing(tmp_path):
    spec = REPO / "experiments" / "volume-vs-nfs.yaml"
    done = contio("plan", spec, "--profile", "tiny", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "experiment volume-vs-nfs (profile tiny): 4 cells, stop rule fixed-time" in out
    assert "backend volume: local-dir" in out
    assert "backend nfs-sync: nfs (export_path=/var/lib/contio/nfs-export" in out
    assert "estimated duration:" in out
    assert list(tmp_path.iterdir()) == []  # no results folder, nothing provisioned


def test_plan_rejects_a_bad_spec_with_the_field_path_and_exit_2(tmp_path):
    spec = tmp_path / "bad.yaml"
    spec.write_text(
        "name: bad\nbackends: {a: {type: local-dir}}\n"
        "factors: {backend: [a, b], target: [nul], workload: [workloada]}\n"
    )
    done = contio("plan", spec)
    assert done.returncode == 2
    assert "factors.target[0]: 'nul' is not a known target; allowed: null" in done.stderr
    spec.write_text(spec.read_text().replace("[nul]", "[null]"))
    done = contio("plan", spec)
    assert done.returncode == 2
    assert "factors.backend[1]: 'b' is not defined; allowed: a" in done.stderr


def test_plan_rejects_an_unknown_profile(tmp_path):
    done = contio("plan", REPO / "experiments" / "hyperconverged.yaml", "--profile", "huge")
    assert done.returncode == 2
    assert "--profile: no profile 'huge'; allowed: paper, small, repro, tiny" in done.stderr


def test_plan_refuses_what_the_engine_refuses_before_anything_runs(tmp_path):
    # The same engine check as `contio run`: a misspelt property, and fio (which stops
    # by time or size) under an operation-count rule, each exit 2 naming the cell.
    typo = tmp_path / "typo.yaml"
    typo.write_text(
        "name: typo\nfactors: {target: [null], workload: [workloada]}\n"
        "properties: {readproportoin: 0.5}\n"
    )
    done = contio("plan", typo, cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown property 'readproportoin' (did you mean 'readproportion'?)" in done.stderr
    fio = tmp_path / "fio.yaml"
    fio.write_text(
        "name: fio-ops\nfactors: {workload: [{kind: fio, name: w, job: {rw: write, size: 1m}}]}\n"
        "stop: {rule: fixed-ops, operations: 1000, repetitions: 2}\n"
    )
    done = contio("plan", fio, cwd=tmp_path)
    assert done.returncode == 2
    assert "cell 1 (" in done.stderr and "use stop rule fixed-time" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fio.yaml", "typo.yaml"]


def test_drop_caches_is_left_to_run_which_refuses_it_without_root(tmp_path, monkeypatch):
    # A non-root user is simulated in-process (the tests run as root).
    from click.testing import CliRunner

    from contio.cli import cli
    from contio.errors import UsageError

    spec = tmp_path / "drop.yaml"
    spec.write_text(
        "name: drop\nfactors: {target: [null], workload: [workloadc]}\ndrop_caches: true\n"
        "properties: {recordcount: 10, operationcount: 10}\n"
    )
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    planned = CliRunner().invoke(cli, ["plan", str(spec)])
    assert planned.exit_code == 0, planned.output
    assert "experiment drop: 1 cells" in planned.output
    ran = CliRunner().invoke(cli, ["run", str(spec), "--results-dir", str(tmp_path / "out")])
    assert isinstance(ran.exception, UsageError)
    assert "drop_caches: needs root" in str(ran.exception)
    assert not (tmp_path / "out").exists()  # refused before a results folder was made


YCSB = "name: real\nfactors: {target: [btree], workload: [workloada]}\n"
SYSBENCH = (
    "name: real\nfactors: {workload: [{kind: sysbench, options: {file-test-mode: rndrd, %s}}]}\n"
    "stop: {rule: fixed-time, seconds: 1, repetitions: 1}\n"
)
LOOP_XFS = (
    "name: real\nbackends: {l: {type: local, mode: device, device: loop, loop_size: 256MiB, "
    "format: xfs}}\nfactors: {backend: [l], target: [null], workload: [workloada]}\n"
)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (YCSB + "threads: [1000000000]", "'threadcount': '1000000000' is not valid; expected an integer from 1 to 4096"),
        (YCSB + "load_threads: 5000", "'threadcount': '5000' is not valid"),
        (YCSB + "properties: {recordcount: -5}", "'recordcount': '-5' is not valid"),
        (YCSB + "properties: {recordcount: 1000.5}", "'recordcount': '1000.5' is not valid"),
        (YCSB + "properties: {recordcount: 1000, insertstart: 5000}", "insertstart (5000) + insertcount (0) exceeds recordcount (1000)"),
        (YCSB + "properties: {recordcount: 1000, insertcount: 2000}", "insertstart (0) + insertcount (2000) exceeds recordcount (1000)"),
        (YCSB + "properties: {recordcount: 1000, insertstart: 1000}", "insertcount: the load would insert no record"),
        (SYSBENCH % "file-total-size: -1M", "--file-total-size: '-1M' is not valid"),
        (SYSBENCH % "file-rw-ratio: -1", "Invalid value for --file-rw-ratio: -1"),
        (SYSBENCH % "percentile: 200", "Invalid value for --percentile: 200 (0 to 100"),
        (
            LOOP_XFS,
            "backends.l.loop_size: XFS needs at least 300MiB (mkfs.xfs refuses less); 'loop_size' is 256MiB",
        ),
    ],
    ids=[
        "threads", "load_threads", "recordcount-negative", "recordcount-fraction",
        "insertstart-past-recordcount", "insertcount-past-recordcount", "nothing-to-insert",
        "sysbench-file-total-size", "sysbench-file-rw-ratio", "sysbench-percentile",
        "local-loop-too-small-for-xfs",
    ],
)  # fmt: skip
def test_plan_checks_the_real_values_and_refuses_what_run_would(tmp_path, engine, spec, message):
    # `plan` used to check with one record, one thread and one block, so these passed it
    # and failed only after provisioning and loading (or never ended: insertcount 0).
    path = tmp_path / "spec.yaml"
    path.write_text(spec)
    done = contio("plan", path, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr and "usage:" not in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["spec.yaml"]  # nothing made


def test_an_exponent_record_count_is_planned_and_run_as_an_integer(tmp_path, engine):
    # YAML 1.1 reads 1e3 as a string and 1000.0 as a float; the engine refuses both texts.
    path = tmp_path / "spec.yaml"
    path.write_text(
        "name: exp\nfactors: {target: [null], workload: [workloadc]}\n"
        "properties: {recordcount: 1e3, operationcount: 2000.0}\n"
        "stop: {rule: workload, repetitions: 1}\n"
    )
    assert contio("plan", path, cwd=tmp_path).returncode == 0
    done = contio("run", path, "--results-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [load] = (tmp_path / "out").glob("*/raw/cell001/s1-rep1/load-c1.json")
    assert read_result(load).operations == 1000


def test_plan_prices_skipped_cells_at_0_s_and_lists_the_claims_it_can_test(tmp_path):
    spec = tmp_path / "claims.yaml"
    spec.write_text(
        "name: claims\n"
        "backends: {volume: {type: local-dir}, nfs: {type: nfs, export_path: /var/lib/contio/nfs-export, mount_via: host}}\n"
        "factors: {backend: [volume, nfs], target: [btree], workload: [workloadc]}\n"
        "stop: {rule: fixed-time, seconds: 60, repetitions: 2}\n"
        "findings:\n"
        "  - {id: nfs-faster, claim: c, kind: greater, cells: {backend: nfs}, against: {backend: volume}}\n"
        "  - {id: mysql-like, system: MySQL, claim: c, kind: less, cells: {backend: volume},\n"
        "     against: {backend: nfs}}\n"
        "  - {id: other-profile, claim: c, kind: trend, trend: grows, cells: {target: lsm}}\n"
        "  - {id: mysql-trend, system: MySQL, claim: c, kind: trend, trend: grows, over: threads,\n"
        "     cells: {backend: volume}}\n"
    )  # fmt: skip
    done = contio("plan", spec, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "other-profile: cannot test — this profile has no cell with target=lsm (cells)" in out
    assert "mysql-trend: can test — 1 cell; on btree, standing in for MySQL" in out
    nfs_skipped = "skipped: backend unavailable" in out
    if nfs_skipped:  # a kernel without NFS (this VM): the NFS cell costs nothing
        assert "nfs-faster: cannot test — its `cells` cells are skipped on this host" in out
        assert "mysql-like: cannot test — its `against` cells are skipped" in out
        assert "0 min 00 s" in out
        assert "estimated duration: 2 min 01 s" in out  # 2 × 60 s + overheads; nothing for NFS
    else:
        assert "nfs-faster: can test — 2 cells" in out


def test_plan_prices_cells_from_the_phases_an_earlier_run_of_the_same_spec_measured(tmp_path):
    spec = tmp_path / "spec.yaml"
    text = (
        "name: measured\nfactors: {target: [btree], workload: [workloadc]}\n"
        "properties: {recordcount: 20000, operationcount: 40000}\n"
        "stop: {rule: workload, repetitions: 2}\n"
    )
    spec.write_text(text)
    done = contio("run", spec, "--results-dir", tmp_path / "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [folder] = (tmp_path / "out").iterdir()
    rows = list(csv.DictReader((folder / "repetitions.csv").open()))
    seconds = {
        p: [float(r["runtime_ms"]) / 1000 for r in rows if r["phase"] == p] for p in ("load", "run")
    }
    # One load (the run is read-only), two runs at their median, 0.3 s of overhead each.
    expected = seconds["load"][0] + 0.3 + 2 * (statistics.median(seconds["run"]) + 0.3)
    priced = contio("plan", spec, "--results-dir", tmp_path / "out", cwd=tmp_path)
    out = " ".join(priced.stdout.split())
    assert f"1 of 1 cells priced from the phases measured in {folder.name}" in out
    minutes, secs = divmod(round(expected), 60)
    assert f"estimated duration: {minutes} min {secs:02d} s" in out
    spec.write_text(text.replace("20000", "30000"))  # another data set: nothing measured
    other, _ = load_spec(spec, None)
    assert measured_phases(tmp_path / "out", spec_fingerprint(other)).seconds == {}


FIO = (
    "name: late\nfactors: {workload: [{kind: fio, job: {rw: randread, bs: 4k, size: %s}}]}\n"
    "stop: {rule: fixed-time, seconds: %s, repetitions: 1}\n"
)
YCSB_C = "name: late\nfactors: {workload: [workloadc]%s}\n"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (FIO % ("-1", "1"), "factors.workload[0]: job 'fio-randread': size: '-1' is not a size"),
        (YCSB_C % "" + "properties: {recordcount: 0}\n", "properties.recordcount: recordcount is 0"),
        (
            YCSB_C % "" + "properties: {recordcount: 10, operationcount: 0}\n",
            "properties.operationcount: operationcount is 0 (no limit)",
        ),
        (
            YCSB_C % ", containers: [100000]" + "properties: {recordcount: 10}\n",
            "factors.containers[0]: 100000 containers are more than this host can start at once: at most",
        ),
        (
            FIO % ("1m", "10") + "warmup_seconds: 30\n",
            "warmup_seconds: 30 s leaves no second to measure in run phases of at most 10 s (stop.seconds)",
        ),
    ],
    ids=["fio-size", "recordcount-0", "operationcount-0", "containers-100000", "warmup-too-long"],
)  # fmt: skip
def test_plan_and_run_refuse_what_could_not_finish_before_anything_is_made(
    tmp_path, engine, spec, message
):
    # Each passed `plan`: the fio size failed in the load phase (an empty results folder
    # left), recordcount 0 and operationcount 0 never ended, 100,000 containers took the
    # plan 109 s and were accepted, the warm-up silently did not apply.
    path = tmp_path / "spec.yaml"
    path.write_text(spec)
    for command in ("plan", "run"):
        done = contio(command, path, cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        assert message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        assert [p.name for p in tmp_path.iterdir()] == ["spec.yaml"]  # no results folder
