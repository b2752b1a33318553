"""The command lines PerfKitBenchmarker's YCSB benchmarks build (its
linux_packages/ycsb.py and the *_ycsb_benchmark.py modules), given to the `ycsb`
launcher: every property they pass is accepted (a warning where it has no
effect), a misspelt one is still refused; YCSB's own rules for `-p` against
`-P`, booleans, BasicDB's delay, the JSON exporters, and numbers printed as
Java prints them.

The database command lines run against closed local ports: what is checked is
that the launcher and engine accept them (exit 1, "could not connect", not 2);
tests/targets runs the bindings against real servers."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pkb_rules
import pytest
from test_pkb_parsing import DATA

# What PKB's YCSBExecutor adds to every command: measurementtype, the interval,
# the HDR log (hdrhistogram type), the status interval with -s, -threads/-target.
PKB_COMMON = [
    "-threads", "2", "-target", "100",
    "-p", "measurementtype=hdrhistogram", "-p", "measurement.interval=both",
    "-p", "hdrhistogram.fileoutput=True", "-p", "hdrhistogram.output.path=hdr/0",
    "-p", "status.interval=1", "-p", "recordcount=10", "-p", "operationcount=10",
    "-p", "insertstart=0", "-p", "insertcount=10", "-s",
]  # fmt: skip
CLOSED = "127.0.0.1:9"  # discard: nothing listens there
# YCSB's workloada, as PKB pushes it (perfkitbenchmarker/data/ycsb/workloada).
WORKLOADA = """workload=site.ycsb.workloads.CoreWorkload
recordcount=1000
operationcount=1000
readallfields=true
readproportion=0.5
updateproportion=0.5
scanproportion=0
insertproportion=0
requestdistribution=zipfian
"""
# Each benchmark's own properties, as its module passes them (load and run).
PKB_BENCHMARKS = {
    "mongodb_ycsb": (
        "mongodb",
        [
            f"mongodb.url=mongodb://{CLOSED}/ycsb?w=1&serverSelectionTimeoutMS=300",
            "mongodb.batchsize=10", "mongodb.upsert=True",
            "core_workload_insertion_retry_limit=10",
            "dataintegrity=true", "readallfields=true", "writeallfields=true",
        ],
    ),
    "managed_mongodb_ycsb": (
        "mongodb",
        [
            f"mongodb.url=mongodb://{CLOSED}/ycsb?serverSelectionTimeoutMS=300",
            "mongodb.upsert=True", "batchsize=100",
        ],
    ),
    "cassandra_ycsb": (
        "cassandra2-cql",
        [
            "hosts=127.0.0.1", "port=9", "columnfamily=data",
            "cassandra.readconsistencylevel=QUORUM", "cassandra.scanconsistencylevel=QUORUM",
            "cassandra.writeconsistencylevel=QUORUM", "cassandra.deleteconsistencylevel=QUORUM",
        ],
    ),
    "jdbc_ycsb": (
        "jdbc",
        [
            "db.driver=com.mysql.jdbc.Driver", f"db.url=jdbc:mysql://{CLOSED}/ycsb",
            "db.user=ycsb", "db.passwd=secret", "db.batchsize=100", "jdbc.fetchsize=10",
        ],
    ),
    "redis_ycsb": ("redis", ["redis.host=127.0.0.1", "redis.port=9"]),
    "cloud_redis_ycsb": ("redis", ["redis.host=127.0.0.1", "redis.port=9", "redis.password=x"]),
}  # fmt: skip


def launch(launcher: Path, cwd: Path, *args: str, timeout: float = 60):
    return subprocess.run(
        [str(launcher), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
        check=False,
    )  # fmt: skip


def pairs(properties: list[str]) -> list[str]:
    return [arg for p in properties for arg in ("-p", p)]


@pytest.mark.parametrize("benchmark", sorted(PKB_BENCHMARKS))
@pytest.mark.parametrize("command", ["load", "run"])
def test_pkb_benchmark_command_lines_are_accepted(
    launcher: Path, tmp_path: Path, benchmark: str, command: str
):
    binding, properties = PKB_BENCHMARKS[benchmark]
    (tmp_path / "hdr").mkdir()
    (tmp_path / "workloada").write_text(WORKLOADA)
    argv = [command, binding, "-cp", "/opt/pkb/ycsb", "-jvm-args=-Xmx4g"]
    argv += ["-P", "workloada", *PKB_COMMON, *pairs(properties)]
    done = launch(launcher, tmp_path, *argv)
    # Before: `mongodb.upsert`, `columnfamily`, `cassandra.scanconsistencylevel`
    # were unknown properties and `-jvm-args=` an unknown option (exit 2).
    assert done.returncode == 1, done.stderr
    assert "unknown property" not in done.stderr, done.stderr
    assert "Command line: -db site.ycsb." in done.stderr


def test_what_has_no_effect_says_so_and_a_typo_is_still_refused(launcher: Path, tmp_path: Path):
    binding, properties = PKB_BENCHMARKS["cassandra_ycsb"]
    done = launch(launcher, tmp_path, "run", binding, *pairs(properties))
    for key in ("columnfamily", "cassandra.scanconsistencylevel"):
        assert f"property '{key}' has no effect" in done.stderr, done.stderr
    typo = launch(launcher, tmp_path, "run", binding, *pairs(properties), "-p", "recordcuont=5")
    assert typo.returncode == 2
    assert "recordcuont" in typo.stderr and "recordcount" in typo.stderr


def run_basic(launcher: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    base = ["run", "basic", "-p", "basicdb.verbose=false"]
    done = launch(launcher, cwd, *base, *args)
    assert done.returncode == 0, done.stderr
    return done


def test_p_wins_over_P_whatever_the_order(launcher: Path, tmp_path: Path):
    (tmp_path / "w").write_text("readproportion=0.5\nupdateproportion=0.5\noperationcount=300\n")
    done = run_basic(
        launcher, tmp_path, "-p", "readproportion=1", "-p", "updateproportion=0", "-P", "w"
    )
    groups = pkb_rules.parse(done.stderr, done.stdout).groups
    # Before: the later -P won (about 150 reads and 150 updates).
    assert groups["read"].statistics["Operations"] == 300
    assert "update" not in groups


def test_booleans_are_read_as_java_reads_them(launcher: Path, tmp_path: Path):
    # Before: `yes` was refused (exit 2); YCSB reads anything but "true" as false.
    run_basic(launcher, tmp_path, "-p", "hdrhistogram.fileoutput=yes", "-p", "operationcount=5")
    assert not list(tmp_path.glob("*.hdr"))
    run_basic(launcher, tmp_path, "-p", "hdrhistogram.fileoutput=TRUE", "-p", "operationcount=5")
    assert (tmp_path / "READ.hdr").is_file()


def read_latencies(done: subprocess.CompletedProcess[str]) -> list[int]:
    """Every read's latency (µs) from the raw type's `READ,<time>,<latency>` lines."""
    return [
        int(line.split(",")[2]) for line in done.stdout.splitlines() if line.startswith("READ,")
    ]


def test_basicdb_randomises_its_delay_in_whole_milliseconds(launcher: Path, tmp_path: Path):
    # YCSB's default basicdb.randomizedelay=true: 0, 1 or 2 ms for simulatedelay=3
    # (the draw itself is unit-tested in target/null.rs).
    args = ["-p", "basicdb.simulatedelay=3", "-p", "operationcount=60", "-json", "run.json"]
    args += ["-p", "readproportion=1", "-p", "updateproportion=0", "-p", "measurementtype=raw"]
    random = read_latencies(run_basic(launcher, tmp_path, *args))
    described = json.loads((tmp_path / "run.json").read_text())["target_description"]
    # Before: a fixed 3 ms unless basicdb.randomizedelay=true was given.
    assert described == {"delay_us": 3000, "delay_random": True, "delay_step_us": 1000}
    assert len(random) == 60 and min(random) < 1000, random
    fixed = read_latencies(run_basic(launcher, tmp_path, *args, "-p", "basicdb.randomizedelay=no"))
    assert min(fixed) >= 3000, fixed


# Java's Double.toString: digits, a point and digits, an optional exponent (5.0E-5).
JAVA_DOUBLE = re.compile(r"-?\d+\.\d+(E-?\d+)?|NaN|-?Infinity")


def test_every_double_is_printed_as_java_prints_it(launcher: Path, tmp_path: Path):
    # A read-only run of BasicDB: nearly every read takes 0 µs, so averages are
    # tiny (PKB crashed on `5e-5`: int() of a value without a point).
    args = ["-p", "readproportion=1", "-p", "updateproportion=0", "-p", "operationcount=20000"]
    done = run_basic(launcher, tmp_path, *args)
    parsed = pkb_rules.parse(done.stderr, done.stdout)
    assert parsed.groups["read"].statistics["Operations"] == 20000
    for line in done.stdout.splitlines():
        value = line.rsplit(", ", 1)[-1]
        if "Average" in line or "Throughput" in line:
            assert JAVA_DOUBLE.fullmatch(value), line
        assert "e" not in value, line


def json_sequence(text: str) -> list[dict]:
    """The values of a whitespace-separated sequence of JSON documents."""
    decoder, values, i = json.JSONDecoder(), [], 0
    while (i := len(text) - len(text[i:].lstrip())) < len(text):
        value, end = decoder.raw_decode(text, i)
        values.append(value)
        i = end
    return values


def names(objects: list[dict]) -> set[tuple[str, str]]:
    """(metric, measurement) pairs, without the JVM's garbage-collector counters."""
    return {
        (o["metric"], o["measurement"]) for o in objects if not o["metric"].startswith("TOTAL_GC")
    }


@pytest.mark.parametrize("exporter", ["JSONArrayMeasurementsExporter", "JSONMeasurementsExporter"])
def test_json_exporters_write_what_ycsb_writes(launcher: Path, tmp_path: Path, exporter: str):
    (tmp_path / "w").write_text((DATA / "measure-workload.properties").read_text())
    args = ["-P", "w", "-threads", "2", "-s"]
    args += ["-p", f"exporter=site.ycsb.measurements.exporter.{exporter}"]
    array = exporter.startswith("JSONArray")
    if array:
        args += ["-p", "exportfile=out.json"]
    done = run_basic(launcher, tmp_path, *args)
    ours = (tmp_path / "out.json").read_text() if array else done.stdout
    if array:
        assert done.stdout == "", "with exportfile the summary goes only to the file"
        theirs_text = (DATA / "ycsb-0.17.0-json-array-run.json").read_text()
        assert ours.splitlines()[:3] == theirs_text.splitlines()[:3]
        assert names(json.loads(ours)) == names(json.loads(theirs_text))
    else:
        theirs = json_sequence((DATA / "ycsb-0.17.0-json-run.stdout.txt").read_text())
        assert names(json_sequence(ours)) == names(theirs)
        assert ours.startswith('{\n  "metric" : "OVERALL",\n')


def test_an_export_file_never_replaces_a_fifo(launcher: Path, tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = launch(launcher, tmp_path, "run", "basic", "-p", f"exportfile={fifo}")
    assert done.returncode == 2, done.stderr
    assert "exportfile" in done.stderr and "not a regular file" in done.stderr
    assert fifo.is_fifo()
