"""Rows, goals and the exit code of `python -m benchmarks`."""

import math

from scipy import stats

from benchmarks.__main__ import exit_code, main
from benchmarks.fileio import DATA_FILE_SIZE, FIO_CASES, fio_job_text
from benchmarks.report import (
    Report,
    Row,
    Sample,
    judge_band,
    judge_ratio,
    median_or_none,
    paired_ratio_interval,
)
from benchmarks.ycsb_null import _median_samples


def _report(**kwargs) -> Report:
    return Report(name="x", title="x", peer="peer", **kwargs)


def test_ratio_and_judgement():
    row = Row(case="threads=2", metric="ops/s", unit="ops/s", contio=9e6, peer=3e6)
    assert row.ratio == 3.0
    assert judge_ratio(9e6, 3e6, 3.0) is True
    assert judge_ratio(8.9e6, 3e6, 3.0) is False
    assert judge_ratio(None, 3e6, 3.0) is None
    assert Row(case="c", metric="m", unit="u", contio=1.0).ratio is None


def test_a_band_judges_both_sides():
    assert judge_band(1.05, 1.0, 0.9, 1.1) is True
    assert judge_band(0.89, 1.0, 0.9, 1.1) is False
    assert judge_band(1.11, 1.0, 0.9, 1.1) is False
    assert judge_band(None, 1.0, 0.9, 1.1) is None


def test_the_ratio_interval_comes_from_the_rounds_pairs():
    # Ratios 1.0, 1.1, 1.2 per round: the interval is Student's around their logs' mean.
    contio, peer = [100.0, 220.0, 60.0], [100.0, 200.0, 50.0]
    logs = [math.log(r) for r in (1.0, 1.1, 1.2)]
    mean = sum(logs) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 2)
    half = stats.t.ppf(0.975, 2) * sd / math.sqrt(3)
    low, high = paired_ratio_interval(contio, peer)
    assert math.isclose(low, math.exp(mean - half)) and math.isclose(high, math.exp(mean + half))
    assert low < 1.0 and high > 1.2  # three rounds: a wide interval, not a false precision
    # A drift shared by both tools (round 2 twice as fast for each) does not widen it.
    assert paired_ratio_interval([100.0, 200.0], [100.0, 200.0]) == (1.0, 1.0)
    assert paired_ratio_interval([1.0], [1.0]) is None
    assert paired_ratio_interval(None, [1.0, 2.0]) is None


def test_exit_codes():
    met = Row(case="c", metric="m", unit="u", contio=1, peer=1, goal="g", passed=True)
    missed = Row(case="c", metric="m", unit="u", contio=1, peer=2, goal="g", passed=False)
    assert exit_code([_report(rows=[met]), _report(skipped="not landed")]) == 0
    assert exit_code([_report(rows=[met, missed])]) == 1
    assert exit_code([_report(rows=[missed]), _report(broken="java missing")]) == 2


def test_unknown_benchmark_name_is_exit_code_2(capsys):
    assert main(["ycsb_nul"]) == 2
    assert "known: ycsb_null" in capsys.readouterr().err


def test_fio_jobs_split_the_file_into_disjoint_regions(tmp_path):
    for case in FIO_CASES:
        text = fio_job_text(case, tmp_path / "data", seconds=10, ramp=2)
        options = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        size = int(options["size"])
        assert int(options["offset_increment"]) == size
        assert size * int(options["numjobs"]) == DATA_FILE_SIZE
        assert options["invalidate"] == "0"


def test_ycsb_null_reports_the_median_round():
    samples = [
        Sample("contio", "threads=1", "ops/s", value, "ops/s") for value in (5.0, 1.0, 9.0)
    ] + [Sample("ycsb", "threads=1", "ops/s", 2.0, "ops/s")]
    assert _median_samples(samples, "contio")[1].value == 5.0
    assert _median_samples(samples, "ycsb")[1].value == 2.0


def test_median_of_rounds():
    assert median_or_none([3.0, 1.0, 2.0]) == 2.0
    assert median_or_none([1.0, 2.0]) == 1.5
    assert median_or_none([]) is None
    assert median_or_none(None) is None
