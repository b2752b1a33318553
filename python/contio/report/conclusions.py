"""The report's headline conclusions and warnings, as sentences from the statistics.

The headline: the largest significant difference between backends (with one backend:
targets) against the baseline, or that none is significant (`contio.stats.backend_comparison.
headline_text`, which `contio run` and `contio results` print too).

Conclusions: each backend (or target) against the baseline (the spec's
`analysis.baseline`, else the first; relative difference with its Fieller interval and
p, paired or Welch as `analysis.t_test` says, `contio.stats.relative_sentence`), the
saturation point and valley of each scaling series, degradation and fairness of each
mix (`contio.stats.mix_comparison`). Significant differences come first, largest first.

Each sentence whose cells failed a validity check (`contio.findings.validity`: data in
the page cache, a saturated CPU, a cell order confounded with the compared factor…)
ends with why it is not valid here (`contio.findings.caveats`), as a verdict resting on
them is downgraded.

Warnings: cells that did not finish (skipped or failed, with the reason the runner
recorded; never run or interrupted), failed operations, confidence intervals wider than
the adaptive rule asked, engine documents missing from `raw/`, and block I/O groups
applied through cgroup v1, which does not throttle buffered writeback.
"""

from __future__ import annotations

import math

from contio.experiment.parts import NO_CONTROLS
from contio.findings.caveats import caveated, headline_with_caveat
from contio.report.experiment import Experiment
from contio.report.scaling_sections import MixResult, ScalingResult
from contio.results.folder import RAW_DIR
from contio.run.stopping import repetitions_for
from contio.stats import (
    RelativeDifference,
    degradation_sentence,
    fairness_sentence,
    relative_sentence,
    saturation_sentence,
    valley_sentence,
)
from contio.stats.backend_comparison import (
    BackendComparison,
    ComparedCell,
    compare_backends,
)
from contio.stats.backend_comparison import headline as pick_headline
from contio.stats.mix_comparison import MIX_FACTOR

MAX_HEADLINES = 12


def _compared_cells(exp: Experiment) -> list[ComparedCell]:
    return [
        ComparedCell(
            {f: row[f] for f in exp.factors if f in row},
            dict(zip(row["sample_repetitions"], row["samples"], strict=True)),
        )
        for _, row in exp.done().iterrows()
    ]


def comparisons(exp: Experiment) -> list[BackendComparison]:
    """Every backend (with one backend: every target) against the baseline, per group of
    the other varying factors (`contio.stats.backend_comparison`)."""
    if exp.done().empty:
        return []
    return compare_backends(_compared_cells(exp), exp.analysis)


def backend_differences(exp: Experiment) -> list[tuple[RelativeDifference, str]]:
    """Every comparison's relative difference and its context ("for workload=…")."""
    return [(item.relative, item.context) for item in comparisons(exp)]


def headline(exp: Experiment) -> str | None:
    """The report's headline: the largest significant difference, or that there is none
    (`contio.stats.backend_comparison.headline_text`, as `contio run` prints it), with
    the caveat of the validity checks its cells failed (`contio.findings.caveats`)."""
    return headline_with_caveat(comparisons(exp), exp.analysis, exp.checks())


def _mix_caveat(exp: Experiment, mix: MixResult) -> str | None:
    """The caveat of a mix cell and the standalone cells it is compared with."""
    checks = exp.checks()
    levels = {k: v for k, v in mix.comparison.levels.items() if k != MIX_FACTOR}
    names = [m.name for m in mix.comparison.members]
    cells = [mix.comparison.cell_key, *checks.cells_with(levels, MIX_FACTOR, names)]
    return checks.caveat(cells, {MIX_FACTOR})


def headlines(exp: Experiment, scaling: list[ScalingResult], mixes: list[MixResult]) -> list[str]:
    """At most `MAX_HEADLINES` sentences, significant and large differences first (the
    largest significant difference is the headline, stated apart: left out here); each
    with the caveat of the validity checks its cells failed."""
    checks = exp.checks()
    ranked: list[tuple[float, str]] = []
    found = comparisons(exp)
    top = pick_headline(found)
    for item in found:
        if item is top:
            continue
        weight = item.size + (10 if item.relative.significant else 0)
        text = relative_sentence(item.relative, item.context)
        ranked.append((weight, caveated(text, checks.comparison_caveat(item))))
    for result in scaling:
        context = f"for {result.title}"
        note = checks.caveat(list(result.cells["cell_key"]), {"containers"})
        if result.valley is not None:
            text = _capitalised(valley_sentence(result.valley, context=context))
            ranked.append((5.0, caveated(text, note)))
        if result.saturation is not None:
            text = _capitalised(saturation_sentence(result.saturation, context=context))
            ranked.append((4.0, caveated(text, note)))
    for mix in mixes:
        context = f"in {mix.title}"
        note = _mix_caveat(exp, mix)
        if mix.fairness is not None:
            ranked.append((6.0, caveated(fairness_sentence(mix.fairness, context), note)))
        for member in mix.degradations:
            text = degradation_sentence(member, context)
            ranked.append((abs(member.fraction) + 3, caveated(text, note)))
    ranked.sort(key=lambda pair: -pair[0])
    return [text for _, text in ranked[:MAX_HEADLINES]]


def _capitalised(text: str) -> str:
    """A sentence that starts with contio's own word ("throughput …"), capitalised.

    Sentences that start with a level or application name are left as they are: the
    name is the user's, and "b&x" must not become "B&x".
    """
    return text[:1].upper() + text[1:]


SHORT_PHASE_S = 0.5
"""Run phases shorter than this mostly measure their own start (see docs/benchmarks.md)."""


def _short_phases(exp: Experiment) -> list[str]:
    """Cells whose run phases were too short for their ops/s to mean steady throughput."""
    if exp.runs.empty or "runtime_ms" not in exp.runs:
        return []
    ok = exp.runs[exp.runs["status"] == "ok"]
    found = []
    for key, runtimes in ok.groupby("cell_key")["runtime_ms"]:
        median = float(runtimes.median()) / 1000
        if median < SHORT_PHASE_S:
            cell = exp.cells[exp.cells["cell_key"] == key].iloc[0]
            found.append(
                f"cell {cell['cell_index']} ({cell['label']}): its run phases lasted "
                f"{median:.2f} s (median); ops/s of phases this short mostly measures their "
                "start (target open, cold caches, the load's compactions): lengthen them "
                "(stop: operations or seconds) and leave a warm-up out"
            )
    return found


def _missing_documents(exp: Experiment) -> list[str]:
    """Run phases whose engine document (under `raw/`) is gone: the figures from the
    index stand, the per-second series, reads/writes and fault events of those phases
    are left out."""
    if exp.runs.empty:
        return []
    paths = [str(p) for p in exp.runs["raw_json"]]
    missing = [p for p in paths if not (exp.folder / p).is_file()]
    if not missing:
        return []
    left_out = (
        "the per-second time series, reads/writes per second and fault events of {which} "
        "are left out; the statistics (from index.sqlite) are complete"
    )
    if not (exp.folder / RAW_DIR).is_dir():
        return [f"{RAW_DIR}/ is missing from {exp.folder}: " + left_out.format(which="every phase")]
    return [
        f"{len(missing)} of {len(paths)} run phases' engine documents are missing "
        f"(first: {missing[0]}): " + left_out.format(which="those phases")
    ]


def _local_dir_levels(spec: dict) -> list[str]:
    """Backend levels of type local-dir (the older single `backend` is named by its type)."""
    definitions = spec.get("backends") or {}
    if not definitions:
        single = spec.get("backend") or {"type": "local-dir"}
        definitions = {str(single.get("type", "local-dir")): single}
    return [name for name, d in definitions.items() if (d or {}).get("type") == "local-dir"]


def _page_cache(exp: Experiment) -> list[str]:
    """YCSB cells on a host directory whose page cache was kept: say what they measured."""
    if exp.spec.get("drop_caches") or exp.runs.empty or "iops" not in exp.runs:
        return []
    ycsb = exp.runs[(exp.runs["status"] == "ok") & exp.runs["iops"].isna()]
    levels = sorted(set(_local_dir_levels(exp.spec)) & set(ycsb.get("backend", []).astype(str)))
    if not levels:
        return []
    which = (
        f"backend {levels[0]} is a directory"
        if len(levels) == 1
        else f"backends {', '.join(levels)} are directories"
    )
    text = (
        f"{which} of this host whose page cache was kept (drop_caches: false): data that "
        "fits in memory was read from the page cache and writes reached it first, so the "
        "results compare the targets' code paths (CPU, memory, system calls) more than "
        "the storage device under them"
    )
    return [text]


def warnings(exp: Experiment) -> list[str]:
    """What a reader must know before trusting the figures."""
    found = []
    for _, cell in exp.cells.iterrows():
        where = f"cell {cell['cell_index']} ({cell['label']})"
        if cell["status"] == "skipped":
            found.append(f"{where} was skipped: {cell['reason'] or 'no reason recorded'}")
        elif cell["status"] == "failed":
            found.append(f"{where} failed: {cell['reason'] or 'no reason recorded'}")
        elif cell["status"] != "done":
            found.append(f"{where} did not finish (status {cell['status']})")
        if cell["failed_operations"]:
            found.append(f"{where}: {cell['failed_operations']} operations failed")
    found += _short_phases(exp)
    found += _missing_documents(exp)
    found += _page_cache(exp)
    failed = exp.runs[exp.runs["status"] != "ok"] if not exp.runs.empty else exp.runs
    if not failed.empty:
        found.append(f"{len(failed)} run phases ended without status ok (left out)")
    stop = exp.spec.get("stop") or {}
    if stop.get("rule") == "adaptive":
        target = float(stop.get("ci_target", 0.02))
        for _, cell in exp.done().iterrows():
            relative = cell["half_width"] / cell["mean"] if cell["mean"] else math.nan
            if math.isfinite(relative) and relative > target:
                needed = repetitions_for(list(cell["samples"]), target)
                more = (
                    f"; about {needed} repetitions of this spread would reach it" if needed else ""
                )
                found.append(
                    f"cell {cell['cell_index']} ({cell['label']}): 95% CI ± {relative:.1%} of "
                    f"the mean, wider than the ± {target:.1%} asked (max_repetitions reached"
                    f"{more})"
                )
    controlled = "io_controls" in exp.cells and (
        (exp.done()["io_controls"].astype(str) != NO_CONTROLS).any()
        if "io_controls" in exp.done()
        else False
    )
    v1 = [m for m in exp.io_mechanisms() if "v1" in str(m)]
    if controlled and v1:
        found.append(
            f"block I/O groups were applied through {v1[0]}: cgroup v1 does not throttle "
            "buffered writeback, so limits hold for direct and read I/O only"
        )
    return found
