"""PerfKitBenchmarker's parsing rules (tests/parsers/pkb_rules.py) read contio's
output, run the way PKB runs YCSB (`ycsb load|run basic ...` from another
directory), as they read real YCSB 0.17.0's output captured with the same
arguments (tests/data/ycsb/measurements): same stage, same groups, same
statistics, data points of the same kind, status time series, HDR logs; for
every measurement type and every `measurement.interval`."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pkb_rules
import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

DATA = Path(__file__).parent.parent / "data" / "ycsb" / "measurements"
WORKLOAD = DATA / "measure-workload.properties"

# (capture, PKB data type, arguments after the workload; -load/-t come from the command)
CASES = {
    "histogram-load": ("histogram", ["-p", "measurementtype=histogram"]),
    "histogram-run": ("histogram", ["-p", "measurementtype=histogram"]),
    "timeseries-run": ("timeseries", ["-p", "measurementtype=timeseries"]),
    "raw-run": ("histogram", ["-p", "measurementtype=raw"]),
    "hdrhistogram-histogram-run": ("histogram", ["-p", "measurementtype=hdrhistogram+histogram"]),
    "hdrhistogram-raw-run": ("histogram", ["-p", "measurementtype=hdrhistogram+raw"]),
    "hdrhistogram-file-run": ("hdrhistogram", ["-p", "measurementtype=hdrhistogram"]),
}
# The same types with `measurement.interval` intended and both, at a target rate
# the threads cannot keep (capture-intervals.sh), so intended latency is not the op's.
# capture prefix: (measurementtype, PKB data type)
INTERVAL_TYPES = {
    "histogram": ("histogram", "histogram"),
    "timeseries": ("timeseries", "timeseries"),
    "raw": ("raw", "histogram"),
    "hdrhistogram-histogram": ("hdrhistogram+histogram", "histogram"),
    "hdrhistogram-raw": ("hdrhistogram+raw", "histogram"),
    "hdrhistogram-file": ("hdrhistogram", "hdrhistogram"),
}
for _interval in ("intended", "both"):
    for _prefix, (_kind, _data_type) in INTERVAL_TYPES.items():
        _args = ["-p", f"measurementtype={_kind}", "-p", f"measurement.interval={_interval}"]
        CASES[f"{_prefix}-{_interval}-run"] = (_data_type, [*_args, "-target", "4000"])
# What the captures were made with besides the type (see capture.sh).
EXTRA = {
    "histogram-load": ["-p", "measurement.histogram.verbose=true", "-p", "histogram.buckets=20"],
    "histogram-run": ["-p", "measurement.histogram.verbose=true", "-p", "histogram.buckets=20"],
    "timeseries-run": ["-p", "timeseries.granularity=50"],
    "hdrhistogram-histogram-run": [
        "-p",
        "measurement.histogram.verbose=true",
        "-p",
        "histogram.buckets=20",
    ],
    "hdrhistogram-file-run": ["-p", "operationcount=1200", "-p", "status.interval=1"],
    "timeseries-intended-run": ["-p", "timeseries.granularity=50"],
    "timeseries-both-run": ["-p", "timeseries.granularity=50"],
    "hdrhistogram-file-intended-run": ["-p", "status.interval=1"],
    "hdrhistogram-file-both-run": ["-p", "status.interval=1"],
}
VERBOSE = {name for name, extra in EXTRA.items() if "measurement.histogram.verbose=true" in extra}


def ycsb_capture(name: str) -> pkb_rules.Parsed:
    data_type = CASES[name][0]
    stderr = (DATA / f"ycsb-0.17.0-{name}.stderr.txt").read_text()
    stdout = (DATA / f"ycsb-0.17.0-{name}.stdout.txt").read_text()
    return pkb_rules.parse(stderr, stdout, data_type)


def run_contio(launcher: Path, workdir: Path, name: str, extra: list[str]) -> pkb_rules.Parsed:
    """contio through the launcher, from `workdir`, with a relative workload path."""
    shutil.copy(WORKLOAD, workdir / "workload.properties")
    command = "load" if name.endswith("-load") else "run"
    data_type, args = CASES[name]
    argv = [str(launcher), command, "basic", "-threads", "2", "-P", "workload.properties"]
    argv += args + EXTRA.get(name, []) + extra + ["-s"]
    done = subprocess.run(
        argv, cwd=workdir, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return pkb_rules.parse(done.stderr, done.stdout, data_type)


def bucket_percentiles(group: pkb_rules.Group) -> set[str]:
    """The histogram type's percentile lines: YCSB leaves one out when only the
    overflow bucket reaches it, which depends on the slowest operations, not on
    the format. They are checked apart: whole bucket bounds (ms)."""
    if "LatencyVariance(ms)" not in group.statistics:
        return set()
    names = {"95thPercentileLatency(ms)", "99thPercentileLatency(ms)"}
    for name in names & set(group.statistics):
        assert float(group.statistics[name]).is_integer(), (name, group.statistics)
    return names


def structure(parsed: pkb_rules.Parsed) -> dict:
    """What must agree between YCSB and contio: not the numbers, their shape."""
    return {
        "stage": parsed.stage,
        "groups": {
            name: {
                "statistics": sorted(
                    filter(lambda s: s not in bucket_percentiles(group), group.statistics)
                ),
                "has_data": bool(group.data),
            }
            for name, group in parsed.groups.items()
        },
        # Cleanups only show in the last status line, which PKB drops when it falls in
        # the same second as the one before (YCSB's and contio's alike).
        "status_groups": sorted(
            {op for _, ops in parsed.status.values() for op in ops if "cleanup" not in op}
        ),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_pkb_reads_contio_as_it_reads_ycsb(launcher: Path, tmp_path: Path, name: str):
    ycsb = ycsb_capture(name)
    extra = []
    if name.startswith("hdrhistogram-file"):
        # PKB passes Python's True.
        extra = ["-p", "hdrhistogram.fileoutput=True", "-p", "hdrhistogram.output.path=hdr-"]
    contio = run_contio(launcher, tmp_path, name, extra)
    assert structure(contio) == structure(ycsb)
    assert contio.command_line.startswith("Command line: -db site.ycsb.BasicDB ")
    assert contio.status, "status lines (-s) make PKB's time series"
    for parsed in (ycsb, contio):
        for group in parsed.groups.values():
            assert all(isinstance(t, int) for t, _ in group.data)
        if CASES[name][0] == "timeseries":
            assert all(t % 50 == 0 for t, _ in parsed.groups["read"].data)
        if name in VERBOSE and name.startswith("histogram"):
            op = "insert" if name.endswith("load") else "read"
            counted = sum(count for _, count in parsed.groups[op].data)
            assert counted == parsed.groups[op].statistics["Operations"]


def test_the_stage_comes_from_the_command_line(launcher: Path, tmp_path: Path):
    # Before: contio printed `Command line: load null …` and PKB filed every load as a run.
    assert ycsb_capture("histogram-load").stage == "load"
    assert run_contio(launcher, tmp_path, "histogram-load", []).stage == "load"
    assert run_contio(launcher, tmp_path, "histogram-run", []).stage == "run"


def percentile_table(log: Path) -> str:
    """HistogramLogProcessor's table for a log, made with the `hdrh` package (a
    stand-in for the Java tool PKB runs; it reads the V2 histograms contio writes)."""
    total = HdrHistogram(1, 60_000_000, 3)
    reader = HistogramLogReader(str(log), HdrHistogram(1, 60_000_000, 3))
    while (interval := reader.get_next_interval_histogram()) is not None:
        total.add(interval)
    out = io.BytesIO()
    total.output_percentile_distribution(out, 1)
    return out.getvalue().decode()


def test_pkb_finds_and_reads_the_hdr_logs(launcher: Path, tmp_path: Path):
    # PKB passes a directory-like prefix without a trailing slash and reads PREFIX + GROUP.hdr.
    (tmp_path / "hdr").mkdir()
    contio = run_contio(
        launcher,
        tmp_path,
        "hdrhistogram-file-run",
        ["-p", "hdrhistogram.fileoutput=true", "-p", "hdrhistogram.output.path=hdr/0"],
    )
    found = pkb_rules.hdr_files(str(tmp_path / "hdr" / "0"))
    assert sorted(found) == ["read", "update"]
    ycsb_found = pkb_rules.hdr_files(str(DATA / "ycsb-0.17.0-hdr-"))
    assert sorted(ycsb_found) == ["read", "update"]
    for group in ("read", "update"):
        ours = pkb_rules.parse_percentile_table(percentile_table(found[group]))
        # YCSB's logs hold V1 histograms; the table is what HistogramLogProcessor
        # 2.1.10 (PKB's) printed for them (capture.sh).
        theirs = pkb_rules.parse_percentile_table(
            (DATA / f"ycsb-0.17.0-hdr-{group.upper()}.hgrm").read_text()
        )
        for rows, parsed in ((ours, contio), (theirs, ycsb_capture("hdrhistogram-file-run"))):
            assert rows, group
            assert all(0 <= p <= 100 and latency >= 0 and n > 0 for p, latency, n in rows)
            assert sum(n for _, _, n in rows) == parsed.groups[group].statistics["Operations"]
            assert [p for p, _, _ in rows] == sorted(p for p, _, _ in rows)
