"""`contio compare`: the recorded unthrottled run against the same cells held to 1,000 ops/s.

`backends-throttled` ran the first thread level of `backends` with the engine's
`target` property at 1,000 ops/s per client, so its throughput is known: about 1,000
ops/s, far below the unthrottled run. The differences are checked against each
folder's own summary.csv (written by the runner, not by the report).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from report_fixtures import results_folder

from contio.report.compare import compare, comparison_text, difference_text
from contio.report.experiment import Experiment
from contio.stats import relative_difference


def summary_means(folder: Path) -> dict[str, float]:
    """Per cell label: the mean ops/s the runner wrote into summary.csv."""
    with (folder / "summary.csv").open(newline="") as src:
        rows = list(csv.DictReader(src))
    return {
        f"{r['backend']}|{r['workload']}|{r['threads']}": float(r["throughput_ops_per_sec_mean"])
        for r in rows
    }


@pytest.fixture
def folders(tmp_path):
    return results_folder("backends", tmp_path), results_folder("backends-throttled", tmp_path)


def test_common_cells_line_up_with_the_known_differences(folders):
    a, b = folders
    result = compare(Experiment.read(a), Experiment.read(b))
    assert len(result.cells) == 4 and len(result.only_a) == 4 and result.only_b == []
    assert all("threads=2" in label for label in result.only_a)
    means_a, means_b = summary_means(a), summary_means(b)
    for cell in result.cells:
        level = dict(part.split("=", 1) for part in cell.label.split(" · "))
        key = f"{level['backend']}|{level['workload']}|{level['threads']}"
        assert cell.mean_a == pytest.approx(means_a[key])
        assert cell.mean_b == pytest.approx(means_b[key])
        assert cell.mean_b == pytest.approx(1000, rel=0.1)  # the rate B was held to
        diff = cell.difference
        assert diff.estimate == pytest.approx(means_b[key] / means_a[key] - 1)
        assert diff.low <= diff.estimate <= diff.high < 0  # B is slower, and surely so
        assert diff.p < 0.05


def test_compare_cli_prints_the_table_and_writes_the_section(folders, tmp_path):
    a, b = folders
    page = tmp_path / "compare.html"
    done = subprocess.run(
        [sys.executable, "-m", "contio", "compare", str(a), str(b), "--html", str(page)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "4 common cells; 4 only in A, 0 only in B" in done.stdout
    assert done.stdout.count("significant") - done.stdout.count("not significant") == 4
    html = page.read_text()
    assert '<section id="comparison">' in html and 'class="compare"' in html


def test_the_same_folder_compared_with_itself_shows_no_difference(folders):
    a, _ = folders
    exp = Experiment.read(a)
    result = compare(exp, exp)
    assert len(result.cells) == 8
    assert all(c.difference.estimate == 0 and not c.difference.significant for c in result.cells)
    assert "not significant" in comparison_text(result)


def test_compare_of_a_folder_that_is_not_one_exits_2(tmp_path, folders):
    a, _ = folders
    done = subprocess.run(
        [sys.executable, "-m", "contio", "compare", str(a), str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "not a contio results folder" in done.stderr
    assert json.loads((a / "host.json").read_text())  # the fixture itself is untouched


def test_a_change_is_never_printed_below_minus_100_percent():
    # Issue 12 saw "-250% to 124%": B's two repetitions (140, 860 ops/s) are not told
    # apart from 0, so Fieller's set reached below a ratio of 0. A throughput falls by
    # 100% at most; with A not told apart from 0 the interval is unbounded, and says so.
    b_near_zero = relative_difference([140.0, 860.0], [732.0, 1000.0, 1268.0], "B", "A")
    assert difference_text(b_near_zero) == (
        "-50% (95% CI -100% to 124%; B is not distinguishable from 0)",
        "0.376",
        "not significant",
    )
    a_near_zero = relative_difference([1000.0, 1100.0, 900.0], [1200.0, 60.0, 1500.0], "B", "A")
    assert difference_text(a_near_zero)[0] == (
        "+9% (interval unbounded: A is not distinguishable from 0)"
    )
