"""The t-test table in the Table 1 layout of paper 002 (docs/papers.md), escaped."""

import xml.etree.ElementTree as ET

from contio.report.ttest_table import TTestRow, t_test_table
from contio.stats import paired_t_test, welch_t_test

SYNC = [101.0, 99.5, 102.3, 100.8, 98.9]
DOCKER = [97.0, 96.1, 99.0, 96.5, 95.2]
ASYNC = [150.2, 148.9, 151.7, 149.0, 150.3]


def test_rows_in_table_1_layout_with_grouped_experiments():
    rows = [
        TTestRow("HDD, 1 container", "read", paired_t_test(SYNC, DOCKER, "Sync", "Docker")),
        TTestRow("HDD, 1 container", "read", paired_t_test(ASYNC, DOCKER, "ASync", "Docker")),
        TTestRow("SSD, 1 container", "write", paired_t_test(DOCKER, SYNC, "Docker", "Sync")),
    ]
    html = t_test_table(rows, caption="Table 1: paired t-tests")
    table = ET.fromstring(html)
    assert table.find("caption").text == "Table 1: paired t-tests"
    header = [th.text for th in table.find("thead").iter("th")]
    assert header == [
        "experiment",
        "operation",
        "comparison",
        "test",
        "mean",
        "std. deviation",
        "t",
        "sig.",
    ]
    body = table.find("tbody").findall("tr")
    assert len(body) == 3
    group = body[0].find("th")
    assert (group.text, group.get("rowspan")) == ("HDD, 1 container", "2")
    assert body[1].find("th") is None  # shares the group cell above
    first = [td.text for td in body[0].findall("td")]
    expected = rows[0].result.table_row()
    assert first == ["read", "Sync - Docker", "paired, n = 5", expected["mean"],
                     expected["std_deviation"], expected["t"], expected["sig"]]  # fmt: skip
    assert body[0].get("class") == "significant"


def test_names_are_escaped():
    result = paired_t_test(SYNC, DOCKER, "<script>alert(1)</script>", "Docker")
    html = t_test_table([TTestRow("<b>x</b>", "read & write", result)], caption="<i>c</i>")
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html
    table = ET.fromstring(html)
    assert table.find("tbody/tr/th").text == "<b>x</b>"
    assert table.find("tbody/tr/td").text == "read & write"


def test_the_table_says_which_test_each_row_is():
    rows = [
        TTestRow("HDD", "read", paired_t_test(SYNC, DOCKER, "Sync", "Docker")),
        TTestRow("HDD", "read", welch_t_test(ASYNC, DOCKER[:4], "ASync", "Docker")),
    ]
    table = ET.fromstring(t_test_table(rows))
    tests = [tr.findall("td")[2].text for tr in table.find("tbody").findall("tr")]
    assert tests == ["paired, n = 5", "Welch, n = 5 / 4"]
