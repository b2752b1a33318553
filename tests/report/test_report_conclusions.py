"""Headline sentences, warnings and utilization from recorded folders (edited copies for the
rarer cases)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from report_fixtures import results_folder
from scipy import stats as scipy_stats

from contio.report.assemble import build_report
from contio.report.backend_sections import backend_tests_section
from contio.report.conclusions import backend_differences, headline, headlines, warnings
from contio.report.experiment import Experiment, cell_table
from contio.report.scaling_sections import mix_results, scaling_results, scaling_section
from contio.results.index import ResultsIndex


def test_backend_headlines_state_each_backend_against_the_first(tmp_path):
    exp = Experiment.read(results_folder("backends", tmp_path))
    diffs = backend_differences(exp)
    assert len(diffs) == 4  # one per workload × threads group
    for diff, context in diffs:
        assert diff.baseline == "local" and diff.level == "<script>alert(1)</script>"
        assert context.startswith("for workload=")
    # The largest significant difference is the headline, stated apart from the rest.
    top = headline(exp)
    assert top.startswith("Largest significant difference of 4 comparisons: <script>")
    sentences = headlines(exp, [], [])
    assert len(sentences) == 3 and top.split(": ", 1)[1] not in sentences
    assert all(" than local for workload=" in s for s in [top, *sentences])
    # Both backends are directories of one file system: the "difference" is the order the
    # cells ran in (local always first), and every sentence says so instead of standing.
    caveat = "(not valid here: the cell order is confounded with backend)"
    assert all(s.endswith(caveat) for s in [top, *sentences]), [top, *sentences]


def test_the_spec_names_the_baseline_and_a_paired_test(tmp_path):
    folder = results_folder("backends", tmp_path)
    spec = json.loads((folder / "spec.json").read_text())
    spec["analysis"] = {"t_test": "paired", "baseline": "<script>alert(1)</script>"}
    (folder / "spec.json").write_text(json.dumps(spec))
    exp = Experiment.read(folder)
    diffs = backend_differences(exp)
    assert len(diffs) == 4
    cells = exp.cells.set_index(["backend", "workload", "threads"])
    for diff, context in diffs:
        assert (diff.level, diff.baseline) == ("local", "<script>alert(1)</script>")
        assert diff.method == "fieller-paired"
        workload, threads = (part.split("=")[1] for part in context[4:].split(" · "))
        a, b = (cells.loc[(backend, workload, int(threads))]
                for backend in ("local", "<script>alert(1)</script>"))  # fmt: skip
        # Repetition i of one backend against repetition i of the other.
        assert a["sample_repetitions"] == b["sample_repetitions"] == (1, 2, 3)
        assert diff.p == pytest.approx(scipy_stats.ttest_rel(a["samples"], b["samples"]).pvalue)
    assert all(" than &lt;script&gt;" in s or " than <script>" in s for s in headlines(exp, [], []))
    html = "".join(backend_tests_section(exp).blocks)
    assert "paired t-tests of each backend minus the baseline (the spec&#x27;s baseline)" in html
    assert "paired, n = 3" in html and "Welch" not in html
    assert "local - &lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_scaling_and_mix_headlines(tmp_path):
    exp = Experiment.read(results_folder("scaling", tmp_path))
    scaling, mixes = scaling_results(exp), mix_results(exp)
    assert [r.title for r in scaling] == ["mix=read", "mix=write", "mix=read+write"]
    assert [m.title for m in mixes] == [f"read+write · containers={n}" for n in (1, 2, 3)]
    assert all({d.application for d in m.degradations} == {"read", "write"} for m in mixes)
    text = " ".join(headlines(exp, scaling, mixes))
    assert "Jain's fairness index" in text and "of its standalone throughput" in text


def test_skipped_cells_are_warned_with_their_reason(tmp_path):
    folder = results_folder("isolation", tmp_path)
    reason = "io_controls: the bfq scheduler is not available on loop7 (available: none)"
    db = sqlite3.connect(folder / "index.sqlite")  # as the runner records a skipped cell
    db.execute("UPDATE cells SET status = 'skipped', reason = ? WHERE cell_index = 4", (reason,))
    db.execute(
        "DELETE FROM phases WHERE cell_key = (SELECT cell_key FROM cells WHERE cell_index = 4)"
    )
    db.commit()
    db.close()
    found = [w for w in warnings(Experiment.read(folder)) if "skipped" in w]
    where = "cell 4 (backend=disk · workload=read · containers=3 · io_controls=weights-50-25-25"
    assert found == [f"{where} · threads=1) was skipped: {reason}"]


def test_failed_cells_are_warned_with_the_reason_the_runner_recorded(tmp_path):
    folder = results_folder("backends", tmp_path)
    reason = "database container c1 (redis) exited with code 137 during the run phase"
    db = sqlite3.connect(folder / "index.sqlite")  # as the runner records a failed cell
    db.execute("UPDATE cells SET status = 'failed', reason = ? WHERE cell_index = 3", (reason,))
    db.commit()
    db.close()
    exp = Experiment.read(folder)
    [found] = [w for w in warnings(exp) if "page cache" not in w]
    assert found.startswith("cell 3 (") and found.endswith(f") failed: {reason}")
    assert "did not finish" not in found


def test_a_ci_wider_than_the_adaptive_rule_asked_is_warned(tmp_path):
    folder = results_folder("backends", tmp_path)
    spec = json.loads((folder / "spec.json").read_text())
    spec["stop"] = {"rule": "adaptive", "seconds": 1, "ci_target": 0.001}
    (folder / "spec.json").write_text(json.dumps(spec))
    found = [w for w in warnings(Experiment.read(folder)) if "page cache" not in w]
    assert len(found) == 8 and all("wider than the ± 0.1% asked" in w for w in found)


def test_io_groups_under_cgroup_v1_warn_that_writeback_is_not_throttled(tmp_path):
    folder = results_folder("isolation", tmp_path)  # a real run under cgroup v1
    assert any("cgroup v1 does not throttle buffered writeback" in w
               for w in warnings(Experiment.read(folder)))  # fmt: skip
    db = sqlite3.connect(folder / "index.sqlite")  # as a cgroup v2 host would record it
    db.execute("UPDATE meta SET value = ? WHERE key LIKE 'io_mechanism.%'",
               (json.dumps("cgroup-v2 io (io.max, io.bfq.weight with BFQ or io.weight)"),))  # fmt: skip
    db.commit()
    db.close()
    assert not any("writeback" in w for w in warnings(Experiment.read(folder)))


def test_utilization_recorded_with_the_runs_is_drawn_beside_scaling(tmp_path):
    exp = Experiment.read(results_folder("scaling", tmp_path))
    plain = scaling_section(exp, scaling_results(exp))
    assert not any("utilization (%)" in block for block in plain.blocks)
    # As a host sampler would record it: a CPU and a disk share per run phase.
    exp.runs = exp.runs.assign(cpu_percent=40.0 + exp.runs["containers"], disk_percent=12.5)
    index = ResultsIndex.open(exp.folder)
    exp.cells = cell_table(index.cells(), exp.runs, exp.factors)
    index.close()
    assert set(exp.cells["disk_percent"]) == {12.5}
    drawn = scaling_section(exp, scaling_results(exp))
    assert all("utilization (%)" in block for block in drawn.blocks)


def test_run_phases_too_short_to_mean_steady_throughput_are_warned(tmp_path):
    folder = results_folder("backends", tmp_path)  # 1 s run phases: nothing to say
    assert not any("mostly measures their start" in w for w in warnings(Experiment.read(folder)))
    db = sqlite3.connect(folder / "index.sqlite")  # as 20,000-operation phases would record
    db.execute("UPDATE phases SET runtime_ms = 140.0 WHERE cell_key = "
               "(SELECT cell_key FROM cells WHERE cell_index = 1)")  # fmt: skip
    db.commit()
    db.close()
    [found] = [w for w in warnings(Experiment.read(folder)) if "mostly measures" in w]
    assert found.startswith("cell 1 (") and "lasted 0.14 s (median)" in found


def test_level_names_are_never_changed_and_stay_escaped(tmp_path):
    # Issue 12: a conclusion that starts with a level name capitalised it (b&"<i>x → B&"<i>x).
    folder = results_folder("backends", tmp_path)
    name = 'b&"<i>x'
    db = sqlite3.connect(folder / "index.sqlite")
    db.execute(
        "UPDATE cells SET levels = replace(levels, ?, ?), label = replace(label, ?, ?)",
        ("<script>alert(1)</script>", json.dumps(name)[1:-1], "<script>alert(1)</script>", name),
    )
    db.commit()
    db.close()
    exp = Experiment.read(folder)
    sentences = [headline(exp).split(": ", 1)[1], *headlines(exp, [], [])]
    assert len(sentences) == 4 and all(s.startswith(f"{name} is ") for s in sentences)
    html = build_report(folder)
    assert html.count("b&amp;&quot;&lt;i&gt;x is ") == 4
    assert "B&amp;" not in html and 'b&"<i>x' not in html
    scaling = Experiment.read(results_folder("scaling", tmp_path / "s"))
    mixes = headlines(scaling, scaling_results(scaling), mix_results(scaling))
    assert any(s.startswith("read loses ") for s in mixes)
    assert not any(s.startswith("Read ") for s in mixes)


def test_ycsb_on_a_host_directory_with_its_page_cache_says_what_it_measured(tmp_path):
    # The default experiment's situation: the report must not pass the page cache off as
    # a disk.
    folder = results_folder("backends", tmp_path)
    [found] = [w for w in warnings(Experiment.read(folder)) if "page cache" in w]
    assert found.startswith("backends <script>alert(1)</script>, local are directories of")
    assert "more than the storage device under them" in found
    spec = json.loads((folder / "spec.json").read_text())
    (folder / "spec.json").write_text(json.dumps(spec | {"drop_caches": True}))
    assert not [w for w in warnings(Experiment.read(folder)) if "page cache" in w]
    isolation = Experiment.read(results_folder("isolation", tmp_path / "i"))  # a device
    assert not [w for w in warnings(isolation) if "page cache" in w]
