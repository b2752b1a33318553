"""Placement advice (issue 16): how well `contio advise` predicts and advises, and what
a profile costs, through the CLI as a user runs it (`contio profile`, `contio advise
--validate`, `contio run`, each a child process in a scratch directory).

1. **Advice**, paper 003's unfair mix: two sequential writers (1 MiB direct writes) and
   two random readers (4 KiB direct reads), four containers on two disks (loop devices
   paced to 100 MB/s each by contio's slow device, so that the disks and not the host's
   page cache or CPUs are what the members share). Each application is profiled alone
   and as 2 copies; `contio advise --objective fairness --validate` then runs the
   recommended placement and the naive one (round-robin, as a default scheduler
   spreads) and measures each member against its application alone on the same disk in
   the same run. Goals: the recommended placement's worst member ≥ 1.3× the naive
   one's, its aggregate normalized throughput ≥ 0.95× the naive one's.
2. **Prediction**, the container-scaling spec's mixes at its `small` profile: each of
   its applications is profiled (1, 2, 4 containers), then the spec's own run measures
   every mix; the model predicts each heterogeneous mix member's throughput against
   its application alone (1 container) from the profiles only. Goal: median absolute
   error ≤ 10 percentage points over the members of the heterogeneous mixes at every
   container count (each reported). The homogeneous cells (copies of one application)
   are predicted from the profiles' own curves and reported beside, not judged: that is
   the profile measured twice, not the model.
3. **Cost**: the wall time of each `contio profile` above at `small` (3 counts × 3
   repetitions of 8 s): goal ≤ 2 minutes each.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from benchmarks.context import BenchContext
from benchmarks.errors import SetupError
from benchmarks.report import Report, Row, Sample

NAME = "placement"
TITLE = "Placement advice: recommended vs naive measured, prediction error, profiling cost"
PEER = "naive"

WORST_GOAL = 1.3
AGGREGATE_GOAL = 0.95
MAE_GOAL = 0.10
PROFILE_GOAL_S = 120.0
DISK = {
    "type": "local", "mode": "device", "device": "loop", "loop_size": "2GiB",
    "loop_direct_io": True, "format": "xfs", "device_bandwidth": "100MB/s",
}  # fmt: skip
"""One of the two disks of the unfair mix: a loop device paced to 100 MB/s."""
UNFAIR_APPS = {
    "writer": {"rw": "write", "bs": "1m", "direct": 1, "size": "256m"},
    "reader": {"rw": "randread", "bs": "4k", "direct": 1, "size": "256m"},
}
SCALING_SPEC = Path(__file__).resolve().parent.parent / "experiments" / "container-scaling.yaml"
SCALING_PROFILE = "small"


def _contio(ctx: BenchContext, cwd: Path, *args: str, timeout: float = 3600) -> str:
    """`contio ARGS` in `cwd`, as a user runs it; its stdout, or `SetupError`."""
    env = {**os.environ, "CONTIO_ENGINE": str(ctx.engine), "COLUMNS": "200"}
    argv = [sys.executable, "-m", "contio", *args]
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise SetupError(f"contio {' '.join(args)} exited {done.returncode}: " + " / ".join(tail))
    return done.stdout


def _profile(ctx: BenchContext, cwd: Path, spec: str, counts: str, report: Report) -> float:
    """Profile `spec` (a file in `cwd`); its wall time, recorded as a sample."""
    ctx.progress(f"contio profile {spec} --containers {counts}")
    started = time.monotonic()
    _contio(ctx, cwd, "profile", spec, "--containers", counts)
    seconds = time.monotonic() - started
    report.samples.append(
        Sample("contio", f"profile {spec}", "wall time", seconds, "s", {"containers": counts})
    )
    # What each profile measured may be the CPU or the page cache: say so beside the goals.
    found = json.loads((cwd / f"{Path(spec).stem}.profile.json").read_text())
    report.notes += [f"{Path(spec).stem} profile caveat: {c}" for c in found["caveats"]]
    return seconds


# -- 1. advice on the unfair mix -------------------------------------------------------
def _unfair_specs(cwd: Path, seconds: int, repetitions: int) -> None:
    for name, job in UNFAIR_APPS.items():
        spec = {
            "name": name, "backends": {"disk": DISK},
            "factors": {"workload": [{"kind": "fio", "name": name, "job": job}]},
            "stop": {"rule": "fixed-time", "seconds": seconds, "repetitions": repetitions},
            "warmup_seconds": 1,
        }  # fmt: skip
        (cwd / f"{name}.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    places = {"disk-a": DISK, "disk-b": DISK}
    (cwd / "places.yaml").write_text(yaml.safe_dump(places, sort_keys=False))


def _advice(ctx: BenchContext, cwd: Path, report: Report) -> None:
    cwd.mkdir(parents=True, exist_ok=True)
    _unfair_specs(cwd, ctx.scaled(6, 2), 3)
    for name in UNFAIR_APPS:
        _profile(ctx, cwd, f"{name}.yaml", "1,2", report)
    ctx.progress("contio advise … --objective fairness --validate")
    members = ["writer.profile.json"] * 2 + ["reader.profile.json"] * 2
    out = _contio(ctx, cwd, "advise", *members, "--backends", "places.yaml", "--validate")
    path = Path(out.split("validation: ", 1)[1].splitlines()[0].strip())
    found = json.loads(path.read_text())
    report.context["advice_validation"] = found
    by_label = {p["label"]: p for p in found["placements"]}
    best = by_label["recommended"]
    naive = by_label.get("naive", best)  # one placement: the advice *is* round-robin
    for placement in (best, naive):
        for m in placement["members"]:
            report.samples.append(
                Sample("contio" if placement is best else "naive", f"{placement['label']} "
                       f"{m['name']}@{m['place']}", "normalized", m["measured"] or 0.0, "× alone",
                       {"predicted": m["predicted"], "half_width": m["measured_half_width"]})
            )  # fmt: skip
    worst = [_worst(p) for p in (best, naive)]
    total = [p["aggregate"][0] if p["aggregate"] else None for p in (best, naive)]
    report.rows.append(_ratio_row("unfair mix: worst member", worst, WORST_GOAL))
    report.rows.append(_ratio_row("unfair mix: aggregate", total, AGGREGATE_GOAL))
    placed = ", ".join(f"{m['name']}→{m['place']}" for m in best["members"])
    report.notes.append(f"recommended placement: {placed}; naive: " +
                        ", ".join(f"{m['name']}→{m['place']}" for m in naive["members"]))  # fmt: skip
    report.notes.append(f"unfair mix results: {path.parent}")


def _worst(placement: dict[str, Any]) -> float | None:
    measured = [m["measured"] for m in placement["members"]]
    return None if any(v is None for v in measured) else min(measured)


def _ratio_row(case: str, values: list[float | None], goal: float) -> Row:
    contio, peer = values
    passed = None if contio is None or not peer else contio / peer >= goal
    return Row(case=case, metric="normalized × alone", unit="×", contio=contio, peer=peer,
               goal=f"ratio ≥ {goal}", passed=passed)  # fmt: skip


# -- 2. prediction over container-scaling's mixes ------------------------------------
def _scaling_document() -> dict[str, Any]:
    from contio.experiment.spec import apply_profile

    data = yaml.safe_load(SCALING_SPEC.read_text())
    merged = apply_profile(data, SCALING_PROFILE, str(SCALING_SPEC))
    merged.pop("profiles", None)
    merged.pop("default_profile", None)
    merged["findings"] = []
    return merged


def _applications(document: dict[str, Any]) -> list[str]:
    """The spec's single-application mixes among its mix levels."""
    return [m for m in document["factors"]["mix"] if len(document["mixes"][m]) == 1]


def _prediction(ctx: BenchContext, cwd: Path, report: Report) -> None:
    cwd.mkdir(parents=True, exist_ok=True)
    document = _scaling_document()
    counts = document["factors"]["containers"]
    for app in _applications(document):
        one = {**document, "name": app, "factors": {**document["factors"], "mix": [app]}}
        (cwd / f"{app}.yaml").write_text(yaml.safe_dump(one, sort_keys=False))
        seconds = _profile(ctx, cwd, f"{app}.yaml", ",".join(map(str, counts)), report)
        report.rows.append(
            Row(
                case=f"profile {app} (small, containers {','.join(map(str, counts))})",
                metric="wall time",
                unit="s",
                contio=seconds,
                goal=f"≤ {PROFILE_GOAL_S:g} s",
                passed=seconds <= PROFILE_GOAL_S,
            )
        )
    (cwd / "scaling.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    ctx.progress("contio run container-scaling (small): the mixes measured")
    out = _contio(ctx, cwd, "run", "scaling.yaml")
    folder = _results_folder(out)
    errors, copies = _prediction_errors(cwd, document, folder, report)
    report.context["prediction_results"] = str(folder)
    mae = float(statistics.median(errors)) if errors else None
    report.rows.append(
        Row(
            case="container-scaling mixes: median |predicted − measured|",
            metric="error",
            unit="points",
            contio=None if mae is None else mae * 100,
            goal=f"≤ {MAE_GOAL * 100:g}",
            passed=None if mae is None else mae <= MAE_GOAL,
        )
    )
    if copies:
        report.notes.append(
            f"copies of one application, predicted from its own profile (not judged): median "
            f"error {statistics.median(copies) * 100:.1f} points over {len(copies)} members"
        )


def _results_folder(out: str) -> Path:
    for line in out.splitlines():
        if line.startswith("results: "):
            return Path(line.removeprefix("results: ").strip())
    raise SetupError("contio run printed no results folder")


def _prediction_errors(
    cwd: Path, document: dict[str, Any], folder: Path, report: Report
) -> tuple[list[float], list[float]]:
    """|predicted − measured| per member of every measured mix cell: (heterogeneous,
    copies of one application)."""
    from contio.profile.interference import predict
    from contio.profile.schema import load_profile
    from contio.results.folder import load

    frame = load(folder)
    ok = frame[(frame["phase"] == "run") & (frame["status"] == "ok")]
    apps = _applications(document)
    profiles = {a: load_profile(cwd / f"{a}.profile.json") for a in apps}
    alone = {
        a: float(ok[(ok["mix"] == a) & (ok["containers"] == 1)]["steady_ops_per_sec"].mean())
        for a in apps
    }
    cores = float(os.cpu_count() or 1)
    mixed: list[float] = []
    copies: list[float] = []
    for (mix, count), rows in ok.groupby(["mix", "containers"], sort=True):
        parts = [_app_of(document, mix, k, apps) for k in range(len(document["mixes"][mix]))]
        members = [p for p in parts for _ in range(int(count))]
        if len(members) < 2 or any(p is None for p in members):
            continue
        names = [f"{p}#{k}" for k, p in enumerate(members, start=1)]
        predicted = predict([profiles[p] for p in members], names, cores)  # type: ignore[index]
        for k, (member, prediction) in enumerate(zip(members, predicted, strict=True), start=1):
            rate = rows[rows["container"] == k]["steady_ops_per_sec"].astype(float).mean()
            measured = rate / alone[member] if alone[member] else float("nan")  # type: ignore[index]
            error = float(abs(prediction.normalized - measured))
            (copies if len(set(members)) == 1 else mixed).append(error)
            report.samples.append(
                Sample("contio", f"{mix} ×{count} {member} #{k}", "normalized", float(measured),
                       "× alone", {"predicted": prediction.normalized,
                                   "bottleneck": prediction.bottleneck})
            )  # fmt: skip
    return mixed, copies


def _app_of(document: dict[str, Any], mix: str, k: int, apps: list[str]) -> str | None:
    """The application (a single-application mix) that member k of `mix` runs."""
    part = document["mixes"][mix][k]
    for app in apps:
        if document["mixes"][app][0] == part:
            return app
    return None


def run(ctx: BenchContext) -> Report:
    report = Report(name=NAME, title=TITLE, peer=PEER)
    root = ctx.scratch() / "placement"
    root.mkdir(parents=True, exist_ok=True)
    try:
        _advice(ctx, root / "unfair", report)
        _prediction(ctx, root / "scaling", report)
    except SetupError as exc:
        report.broken = str(exc)
    return report
