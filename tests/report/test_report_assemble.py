"""The HTML report of recorded results folders, opened in headless Chromium.

The folders under tests/data/report/ were recorded by running the specs in
tests/data/report/specs/ with the null target (record.py). Each test builds a report
and checks in the browser's DOM that the expected figures and tables are there, that
sections without data are left out, that nothing printed to the console, and that
injected names are text.
"""

from __future__ import annotations

import json
import re
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_browser import open_page
from report_fixtures import results_folder

from contio.gluster.cluster_state import LocalClusterConfig, planned_state
from contio.gluster.local_cluster import LocalCluster
from contio.report.assemble import build_report, write_report

INJECTED = "<script>alert(1)</script>"
SECTIONS = ("summary", "throughput-vs-threads", "scaling", "latency-vs-containers", "mixes",
            "isolation", "t-tests", "cells", "validity", "time-series")  # fmt: skip


class DomSummary(HTMLParser):
    """Counts of what the loaded page holds: charts by kind, sections, tables, text."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: dict[str, int] = {}
        self.sections: list[str] = []
        self.tables: list[str] = []
        self.elements: dict[str, int] = {}
        self.text: list[str] = []
        self.svg_texts = 0
        self._in_title = False
        self.title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.elements[tag] = self.elements.get(tag, 0) + 1
        if tag == "figure" and found.get("data-chart"):
            self.charts[found["data-chart"]] = self.charts.get(found["data-chart"], 0) + 1
        if tag == "section":
            self.sections.append(found.get("id") or "")
        if tag == "table":
            self.tables.append(found.get("class") or "")
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_title:
            self.title += data


def view(name: str, tmp_path: Path, compare_with: str | None = None):
    folder = results_folder(name, tmp_path)
    other = results_folder(compare_with, tmp_path) if compare_with else None
    page = write_report(folder, compare_with=other)
    shot = tmp_path / f"{name}.png"
    seen = open_page(page, shot, tmp_path)
    dom = DomSummary()
    dom.feed(seen.dom)
    assert shot.stat().st_size > 10_000, "the screenshot is empty"
    return seen, dom


def test_the_console_check_sees_a_page_that_breaks_the_rules(tmp_path):
    # The check the report tests rely on: a script and a network fetch are reported.
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src \'none\'">'
        '<img src="http://example.invalid/x.png"><script>console.error("ran")</script>'
    )
    seen = open_page(page, tmp_path / "bad.png", tmp_path)
    assert len(seen.console) >= 2, seen.console


@pytest.fixture(scope="module")
def backends_view(tmp_path_factory):
    return view("backends", tmp_path_factory.mktemp("backends"))


def test_backends_report_has_threads_charts_t_tests_and_time_series(backends_view):
    seen, dom = backends_view
    assert seen.console == []
    # Two workloads: a throughput-against-threads chart each; per workload × threads a
    # read/write bar chart; one time series per cell (2 backends × 2 workloads × 2).
    assert dom.charts == {"throughput-vs-threads": 2, "read-write-bars": 4, "time-series": 8}
    assert [s for s in dom.sections] == ["summary", "throughput-vs-threads", "t-tests", "cells",
                                         "validity", "time-series"]  # fmt: skip
    # The validity checks of every cell, in a table of their own.
    assert "checks" in dom.tables
    assert "t-tests" in dom.tables and "cells" in dom.tables and "backends" in dom.tables
    text = "".join(dom.text)
    # The headline: the second backend against the first, with interval and p.
    assert f"{INJECTED} is " in text and " than local for " in text
    assert "Conclusions" in text


def test_injected_names_show_as_text_and_nothing_runs(backends_view):
    seen, dom = backends_view
    assert dom.elements.get("script", 0) == 0
    assert dom.title == "contio: report-backends"  # the description's script did not run
    text = "".join(dom.text)
    assert INJECTED in text
    assert "<script>document.title='injected'</script>" in text
    assert seen.console == []


def test_scaling_report_marks_saturation_and_compares_mixes(tmp_path):
    seen, dom = view("scaling", tmp_path)
    assert seen.console == []
    # read, write and read+write against 1–3 containers; latency in one chart; one
    # mix chart per container count; 9 cells' time series.
    assert dom.charts == {"scaling": 3, "latency-vs-containers": 1, "mix-bars": 3,
                          "time-series": 9}  # fmt: skip
    assert "throughput-vs-threads" not in dom.sections and "t-tests" not in dom.sections
    text = "".join(dom.text)
    assert "Jain's fairness index" in text
    assert "of its standalone throughput in read+write" in text


def test_isolation_report_stacks_the_groups_bandwidth_with_their_targets(tmp_path):
    # Recorded with contio.qos applying the controls for real (cgroup v1, a loop device).
    seen, dom = view("isolation", tmp_path)
    assert seen.console == []
    # Writers (none, throttle-2) and readers (none, weights-50-25-25): a chart each.
    assert dom.charts == {"stacked-bandwidth": 2, "time-series": 4}
    text = "".join(dom.text)
    assert "read + written (MiB/s)" in text  # the axis: as paper 004's Fig. 2-4
    assert "≤ 2.0 MiB/s" in text  # the throttled group's limit, marked
    assert all(f"w {w}: {share}%" in text for w, share in ((50, 50), (25, 25)))
    # The real run applied its groups through cgroup v1: the writeback warning.
    assert "cgroup v1 does not throttle buffered writeback" in text


def test_sections_without_data_are_left_out(tmp_path):
    html = build_report(results_folder("isolation", tmp_path))
    for absent in ("scaling", "mixes", "t-tests", "throughput-vs-threads"):
        assert f'<section id="{absent}"' not in html
    # Nothing to fetch: no external sources, links, style sheets or imports.
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:|//)|<link|@import|url\((?!#)", html)


def test_the_report_is_the_same_for_the_same_folder(tmp_path):
    folder = results_folder("scaling", tmp_path)
    assert build_report(folder) == build_report(folder)


def test_events_the_runner_recorded_are_marked_on_the_time_series(tmp_path):
    # Recorded by a real run: node 2 of a dispersed volume stopped 2 s into each run;
    # its restart completed after the 15 s run, which the caption says instead.
    folder = results_folder("events", tmp_path)
    html = build_report(folder)
    timeseries = html[html.index('<section id="time-series">') :]
    figure = timeseries[timeseries.index("<svg") : timeseries.index("</svg>")]
    assert "node 2 stopped" in figure
    assert "node 2 restarted" not in figure
    assert re.search(r"outside the 15 s run: node 2 restarted at \d+\.\d s", timeseries)


def test_charts_fill_the_column_of_the_page(tmp_path):
    # Issue 12: charts took about 40% of the page. Each is drawn about as wide as the
    # column (test_report_figures) and stretched to exactly its width.
    html = build_report(results_folder("scaling", tmp_path))
    assert re.search(r"figure\.chart svg \{ width: 100%; height: auto; \}", html)
    widths = [float(w) * 96 / 72 for w in re.findall(r'<svg[^>]*\swidth="([\d.]+)pt"', html)]
    assert widths and all(960 <= w <= 1100 for w in widths)
    assert "max-width: 1100px" in html


def test_a_run_on_a_named_cluster_shows_that_clusters_options(tmp_path):
    # Issue 12: with `cluster: anrec` naming a cluster made by `contio cluster up` (subnet
    # 10.219.0.0/24, one 1 GiB disk per node), the backend's own cluster options are its
    # defaults (2GiB, 10.213.0.0/24), which the table showed as if they had been used.
    folder = results_folder("events", tmp_path)
    config = LocalClusterConfig(name="anrec", disks_per_node=1, disk_size="1GiB",
                                subnet="10.219.0.0/24")  # fmt: skip
    cluster = LocalCluster(planned_state(config, tmp_path / "anrec"), tmp_path / "anrec").describe()
    db = sqlite3.connect(folder / "index.sqlite")
    [(text,)] = db.execute("SELECT description FROM backends WHERE name = 'dispersed'")
    description = json.loads(text)
    description["options"] |= {"disks_per_node": 2, "disk_size": "2GiB",
                               "subnet": "10.213.0.0/24"}  # fmt: skip
    description["cluster"] = cluster  # as LocalCluster.describe() records it
    db.execute("UPDATE backends SET description = ?", (json.dumps(description),))
    db.commit()
    db.close()
    html = build_report(folder)
    backends = html[html.index('<table class="backends">') :]
    backends = backends[: backends.index("</table>")]
    assert "2GiB" not in backends and "10.213.0.0/24" not in backends
    assert (
        "cluster: local cluster &#x27;anrec&#x27;: 3 nodes (10.219.0.11, 10.219.0.12, "
        "10.219.0.13), 1 brick disk each (" in backends
    )
    assert "1GiB), subnet 10.219.0.0/24" in backends
