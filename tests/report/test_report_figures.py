"""Charts: valid SVG with axis titles, units and legends, greys only, names kept as text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from contio.errors import FigureDataError
from contio.report import figures, share_figures
from contio.report.chart_style import series_styles

SVG = "{http://www.w3.org/2000/svg}"
INJECTED = "<script>alert(1)</script>"


def texts(svg: str) -> list[str]:
    """Every text run of an SVG (matplotlib writes text as <text> with svg.fonttype none)."""
    root = ET.fromstring(svg)
    return ["".join(node.itertext()) for node in root.iter(f"{SVG}text")]


def colours(svg: str) -> set[str]:
    return set(re.findall(r"#[0-9a-fA-F]{6}\b", svg))


def assert_black_and_white(svg: str) -> None:
    for colour in colours(svg):
        r, g, b = (colour[i : i + 2].lower() for i in (1, 3, 5))
        assert r == g == b, f"{colour} is not a grey"


def threads_frame(backends=("local", "dispersed", INJECTED, "$x$ cost")) -> pd.DataFrame:
    rows = []
    for k, backend in enumerate(backends):
        for threads in (1, 10, 20, 30):
            mean = (100 - 10 * k) * threads**0.5
            rows.append(
                {"backend": backend, "threads": threads, "mean": mean,
                 "ci_low": 0.95 * mean, "ci_high": 1.05 * mean}
            )  # fmt: skip
    return pd.DataFrame(rows)


def test_throughput_against_threads():
    svg = figures.throughput_vs_threads(threads_frame(), title="MongoDB, workload A")
    words = texts(svg)
    assert "threads (count)" in words
    assert "throughput (ops/s)" in words
    assert "backend (band: 95% CI)" in words
    for name in ("local", "dispersed", "MongoDB, workload A"):
        assert name in words
    assert_black_and_white(svg)


def test_user_names_stay_text():
    svg = figures.throughput_vs_threads(threads_frame())
    root = ET.fromstring(svg)  # parses: the name did not break the XML
    assert not [n for n in root.iter() if n.tag.endswith("script")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert INJECTED in texts(svg)
    assert "$x$ cost" in texts(svg)  # shown literally, not as math


def test_same_data_gives_the_same_svg():
    assert figures.throughput_vs_threads(threads_frame()) == figures.throughput_vs_threads(
        threads_frame()
    )


def test_scaling_marks_saturation_and_valley():
    data = pd.DataFrame(
        {
            "containers": [1, 2, 3, 4, 5, 6],
            "cumulative_mean": [300, 520, 610, 240, 380, 420],
            "cumulative_ci_low": [290, 500, 590, 230, 370, 410],
            "cumulative_ci_high": [310, 540, 630, 250, 390, 430],
            "per_container_mean": [300, 260, 203, 60, 76, 70],
            "cpu_percent": [20, 40, 60, 50, 55, 60],
            "disk_percent": [5, 10, 20, 90, 95, 97],
        }
    )
    svg = figures.scaling(data, saturation=5, valley=(3, 4), title="fio 4K randread", unit="IOPS")
    words = texts(svg)
    for expected in ("saturation: 5", "valley (3 → 4)", "containers (count)", "throughput (IOPS)",
                     "utilization (%)", "cumulative (95% CI)", "per container", "CPU",
                     "disk bandwidth"):  # fmt: skip
        assert expected in words
    assert_black_and_white(svg)
    plain = texts(figures.scaling(data))
    assert not any(w.startswith(("saturation", "valley")) for w in plain)


def test_scaling_without_utilization_draws_the_throughput_panel_only():
    data = pd.DataFrame(
        {"containers": [1, 2, 3], "cumulative_mean": [10, 18, 20], "cumulative_ci_low": [9, 17, 19],
         "cumulative_ci_high": [11, 19, 21], "per_container_mean": [10, 9, 6.7],
         "cpu_percent": [float("nan")] * 3}
    )  # fmt: skip
    words = texts(figures.scaling(data))
    assert "throughput (ops/s)" in words and "per container" in words
    assert "utilization (%)" not in words and "CPU" not in words


def test_latency_against_containers():
    data = pd.DataFrame(
        [{"series": s, "containers": c, "latency_ms": c * m}
         for s, m in (("MySQL", 3.0), ("Cassandra", 1.0)) for c in range(1, 9)]
    )  # fmt: skip
    words = texts(figures.latency_vs_containers(data, percentile="p95"))
    assert {"p95 latency (ms)", "containers (count)", "MySQL", "Cassandra"} <= set(words)


def test_mix_bars_show_degradation_and_fairness():
    data = pd.DataFrame(
        [{"mix": mix, "application": app, "mean": mean, "ci_low": 0.97 * mean,
          "ci_high": 1.03 * mean, "standalone_mean": alone}
         for mix in ("1+1", "2+2")
         for app, mean, alone in (("Cassandra", 50_000, 60_000), ("MySQL", 9_000, 18_000))]
    )  # fmt: skip
    svg = figures.mix_bars(data, jain={"1+1": 0.94})
    words = texts(svg)
    assert "throughput (% of standalone)" in words
    assert words.count("50% less") == 2 and words.count("17% less") == 2
    assert any("Jain 0.94" in w for w in words)
    assert {"Cassandra", "MySQL", "standalone"} <= set(words)
    assert_black_and_white(svg)


def test_stacked_bandwidth_and_read_write_bars():
    stacked = pd.DataFrame(
        [{"case": case, "group": group, "bandwidth": bw}
         for case in ("Phy", "10 MB/s") for group, bw in (("vnode1", 10), ("vnode2", 30))]
    )  # fmt: skip
    words = texts(share_figures.stacked_bandwidth(stacked, case_title="throttle of vnode1"))
    assert {"aggregate bandwidth (MB/s)", "throttle of vnode1", "vnode1", "vnode2", "Phy"} <= set(
        words
    )
    bars = pd.DataFrame(
        [{"storage": s, "operation": op, "mean": m, "std": 0.1 * m}
         for s, m in (("volume", 100), ("nfs async", 150)) for op in ("read", "write")]
    )  # fmt: skip
    svg = figures.read_write_bars(bars, unit="operations/s")
    assert {"mean (operations/s)", "read", "write", "volume", "nfs async"} <= set(texts(svg))
    assert_black_and_white(svg)


def test_stacked_bandwidth_marks_each_groups_target():
    nan = float("nan")
    stacked = pd.DataFrame(
        [
            {"case": "none", "group": "g1", "bandwidth": 40.0, "target": nan, "target_label": ""},
            {"case": "none", "group": "g2", "bandwidth": 40.0, "target": nan, "target_label": ""},
            {"case": "throttle", "group": "g1", "bandwidth": 9.8, "target": 10.0,
             "target_label": "≤ 10.0 MiB/s"},
            {"case": "throttle", "group": "g2", "bandwidth": 70.0, "target": nan,
             "target_label": ""},
        ]
    )  # fmt: skip
    svg = share_figures.stacked_bandwidth(stacked, unit="MiB/s", quantity="read + written")
    words = set(texts(svg))
    assert {"read + written (MiB/s)", "≤ 10.0 MiB/s"} <= words
    assert "target (throttle limit or weight share)" in words
    plain = share_figures.stacked_bandwidth(stacked.drop(columns=["target", "target_label"]))
    assert "target (throttle limit or weight share)" not in set(texts(plain))
    assert_black_and_white(svg)


def test_time_series_marks_events():
    data = pd.DataFrame({"second": range(60), "ops_per_s": [1000.0] * 60, "p99_ms": [5.0] * 60})
    words = texts(figures.time_series(data, events=[(30, "node 2 stopped")]))
    assert {"time (s)", "throughput (ops/s)", "p99 latency (ms)", "node 2 stopped"} <= set(words)


def test_series_styles_differ_without_colour():
    styles = series_styles(32)
    assert len({(s.linestyle, s.marker) for s in styles}) == 32
    assert len({s.hatch for s in styles[:8]}) == 8


def test_missing_columns_and_empty_frames_are_named():
    with pytest.raises(FigureDataError) as info:
        figures.throughput_vs_threads(pd.DataFrame({"backend": ["a"], "threads": [1]}))
    assert str(info.value) == (
        "throughput_vs_threads: missing column(s) mean, ci_low, ci_high; "
        "needs: backend, threads, mean, ci_low, ci_high"
    )
    with pytest.raises(FigureDataError, match=r"^time_series: no rows to plot"):
        figures.time_series(pd.DataFrame(columns=["second", "ops_per_s", "p99_ms"]))


def numbers(svg: str) -> list[float]:
    """The numeric text runs of a chart: its tick labels (matplotlib's minus sign too)."""
    found = []
    for word in texts(svg):
        plain = word.replace("−", "-").replace(",", "")
        if re.fullmatch(r"-?\d+(\.\d+)?", plain):
            found.append(float(plain))
    return found


def test_the_isolation_axis_follows_the_measurements_not_a_distant_limit():
    # Issue 12: the unthrottled groups were given 10 GB/s (9,536.7 MiB/s) as "no limit";
    # the axis went to 10,000 and the measured 10 and 20 MB/s bars disappeared.
    no_limit = 10e9 / 2**20
    rows = []
    for case, limit, got in (("throttle-10", 9.54, 9.4), ("throttle-20", 19.07, 18.8)):
        rows.append({"case": case, "group": "group 1", "bandwidth": got, "target": limit,
                     "target_label": f"≤ {limit:.1f} MiB/s"})  # fmt: skip
        for group in ("group 2", "group 3", "group 4"):
            rows.append({"case": case, "group": group, "bandwidth": 30.0, "target": no_limit,
                         "target_label": f"≤ {no_limit:.1f} MiB/s"})  # fmt: skip
    svg = share_figures.stacked_bandwidth(pd.DataFrame(rows), unit="MiB/s")
    tallest = 18.8 + 3 * 30.0
    ticks = numbers(svg)
    assert tallest <= max(ticks) < 1.5 * tallest  # the axis: the bars, not 9,536.7
    words = texts(svg)
    assert words.count("↑ 3 above the axis:") == 2  # one per bar, the values below it
    assert words.count("≤ 9536.7 MiB/s") == 2
    assert {"≤ 9.5 MiB/s", "≤ 19.1 MiB/s"} <= set(words)  # limits within reach: dashes


def path_moves(svg: str, gid: str) -> int:
    """How many separate pieces (SVG `M` commands) the line of the series `gid` has."""
    root = ET.fromstring(svg)
    for group in root.iter(f"{SVG}g"):
        if group.get("id") == gid:
            return sum(path.get("d", "").count("M") for path in group.iter(f"{SVG}path"))
    raise AssertionError(f"no element {gid} in the chart")


def test_a_second_without_operations_is_a_gap_in_the_p99_line():
    # A node outage: seconds 20-24 completed nothing, so they have no latency at all.
    nan = float("nan")
    p99 = [5.0 if not 20 <= s < 25 else nan for s in range(60)]
    ops = [1000.0 if not 20 <= s < 25 else 0.0 for s in range(60)]
    svg = figures.time_series(pd.DataFrame({"second": range(60), "ops_per_s": ops, "p99_ms": p99}))
    assert path_moves(svg, "p99-latency") == 2  # the p99 line: before and after the gap
    assert min(numbers(svg)) >= 0
    whole = figures.time_series(
        pd.DataFrame({"second": range(60), "ops_per_s": ops, "p99_ms": [5.0] * 60})
    )
    assert path_moves(whole, "p99-latency") == 1


def test_charts_are_drawn_for_the_pages_width():
    # The report's column is about 1,040 px wide (max-width 1100 px less padding); a chart
    # drawn much narrower and stretched would blow its text up, one left narrow wastes it.
    svg = figures.throughput_vs_threads(threads_frame())
    width = float(re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', svg).group(1))
    assert 960 <= width * 96 / 72 <= 1100


def test_tenant_timeline_stacks_tenants_per_node_and_marks_share_moves():
    rows = [
        {"t": float(t), "node": node, "tenant": tenant, "measured_bps": rate, "target_bps": share}
        for t in range(5)
        for node in ("node1", "node2")
        for tenant, rate, share in (("paraview", 80e6, 95e6), (INJECTED, 5e6, 5e6))
    ]
    svg = share_figures.tenant_timeline(pd.DataFrame(rows), moves=[(2.0, "node1")], title="bg-5")
    words = set(texts(svg))
    assert {"node1 (MB/s)", "node2 (MB/s)", "paraview", "paraview share", INJECTED} <= words
    assert "time (s); dotted: shares moved" in words
    assert_black_and_white(svg)


def test_share_bars_put_achieved_beside_the_target_share():
    data = pd.DataFrame(
        [
            {"case": "bg-5", "tenant": "background", "achieved_bps": 5.1e6,
             "achieved_sd_bps": 0.1e6, "target_bps": 5e6},
            {"case": "bg-5", "tenant": "paraview", "achieved_bps": 80e6,
             "achieved_sd_bps": 4e6, "target_bps": 95e6},
        ]
    )  # fmt: skip
    svg = share_figures.share_bars(data)
    assert {"target share", "per storage node (MB/s)", "background", "paraview"} <= set(texts(svg))
    with pytest.raises(FigureDataError, match="share_bars: missing column"):
        share_figures.share_bars(data.drop(columns=["target_bps"]))
