"""The middleware bench's latency histograms: fio's `json+` bins pooled over runs and
read back as percentiles, on a real output of the protection goal's paced reader."""

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.middleware import Readers, percentile_ms

DATA = Path(__file__).parent.parent / "data" / "bench"
PACED = DATA / "fio-3.33-json-plus-paced-read.json"
"""fio 3.33, six direct 1 MiB readers paced at 10 MB/s each, group_reporting, 12 s."""


def _readers_of(path: Path) -> Readers:
    readers = Readers.__new__(Readers)  # only its output file: no fio is started
    readers.out = path
    return readers


def test_the_bins_hold_every_read_and_give_fios_own_percentiles(tmp_path):
    text = PACED.read_text()
    job = json.loads(text[text.index("{") :])["jobs"][0]["read"]
    bins = _readers_of(PACED).latency_bins()
    assert sum(bins.values()) == job["total_ios"] == 720
    for q in ("50.000000", "90.000000", "99.000000"):
        assert percentile_ms(bins, float(q)) == pytest.approx(job["clat_ns"]["percentile"][q] / 1e6)


def test_pooled_runs_count_every_request_once(tmp_path):
    second = tmp_path / "second.json"
    shutil.copy(PACED, second)
    one = _readers_of(PACED).latency_bins()
    pooled = one + _readers_of(second).latency_bins()
    assert sum(pooled.values()) == 2 * sum(one.values())
    assert percentile_ms(pooled, 99) == percentile_ms(one, 99)  # the same shape twice


def test_a_missing_report_or_an_empty_histogram_gives_nothing(tmp_path):
    assert _readers_of(tmp_path / "absent.json").latency_bins() == Counter()
    assert percentile_ms(Counter(), 99) is None
    assert percentile_ms(Counter({10_000_000: 99, 200_000_000: 1}), 99) == 10.0
    assert percentile_ms(Counter({10_000_000: 98, 200_000_000: 2}), 99) == 200.0
