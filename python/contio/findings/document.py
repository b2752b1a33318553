"""findings.json: every claim's verdict on a results folder, machine-readable.

    {"schema": "contio.findings", "version": 1, "rules": 2, "contio_version": "…",
     "source": {"index_size": …, "index_mtime_ns": …, "spec_sha256": "…"},
     "verdicts": [{"id", "paper", "system", "subject", "claim", "kind", "outcome",
                   "summary", "metric", "alpha", "not_valid", "cannot_tell",
                   "stand_ins": [{"system", "target", "can_show", "cannot_show"}],
                   "to_decide": {"half_width", "unit", "repetitions"} | null,
                   "evidence": [{"label", "outcome", "text", "cells", "numbers",
                                 "to_decide"}]}]}

Numbers that are not finite (no interval, an unbounded ratio) are `null`. The file is
derived data: `contio run` writes it at its end, `contio report` and `contio results`
rewrite it when it is missing or stale — when the index or the spec changed since it
was written, or another contio version, schema or revision of the verdict rules (`rules`)
wrote it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contio import __version__
from contio.experiment.findings import FindingSpec
from contio.experiment.stand_ins import StandIn
from contio.findings.cell_data import cell_data
from contio.findings.evidence import Evidence, ToDecide
from contio.findings.validity import check_cells, folder_meta
from contio.findings.verdicts import Verdict, evaluate
from contio.output_files import replace_text
from contio.results.folder import load
from contio.results.index import INDEX_FILE, ResultsIndex

FINDINGS_JSON = "findings.json"
SCHEMA = "contio.findings"
VERSION = 1
RULES = 2
"""The verdict rules' revision, raised when a rule changes what a verdict says (2: a
trend whose mechanism check failed at every level is not valid here), so that findings
written under older rules are evaluated again."""


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """A verdict as plain JSON data (non-finite numbers as null)."""
    found: dict[str, Any] = _finite(dataclasses.asdict(verdict))
    return found


def _to_decide(data: dict[str, Any] | None) -> ToDecide | None:
    if data is None:
        return None
    half = data.get("half_width")
    return ToDecide(
        math.nan if half is None else float(half), data["unit"], data.get("repetitions")
    )


def verdict_from_json(data: dict[str, Any]) -> Verdict:
    """The verdict `verdict_json` wrote (nulls in numbers stay None)."""
    evidence = tuple(
        Evidence(
            e["label"],
            e["outcome"],
            e["text"],
            tuple(e["cells"]),
            dict(e.get("numbers") or {}),
            _to_decide(e.get("to_decide")),
        )
        for e in data.get("evidence") or []
    )
    return Verdict(
        id=data["id"], claim=data["claim"], kind=data["kind"], outcome=data["outcome"],
        summary=data["summary"], paper=data.get("paper"), system=data.get("system"),
        subject=data.get("subject"), metric=data.get("metric", ""),
        alpha=float(data.get("alpha", 0.05)), evidence=evidence,
        not_valid=tuple(data.get("not_valid") or ()),
        cannot_tell=tuple(data.get("cannot_tell") or ()),
        stand_ins=tuple(StandIn(**s) for s in data.get("stand_ins") or ()),
        to_decide=_to_decide(data.get("to_decide")),
    )  # fmt: skip


def _source(folder: Path) -> dict[str, Any]:
    """What the verdicts were computed from: the index's size and time, the spec's hash."""
    index = (folder / INDEX_FILE).stat()
    spec = folder / "spec.json"
    digest = hashlib.sha256(spec.read_bytes()).hexdigest() if spec.is_file() else ""
    return {"index_size": index.st_size, "index_mtime_ns": index.st_mtime_ns, "spec_sha256": digest}


def _spec(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / "spec.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def claims_of(spec: dict[str, Any]) -> list[FindingSpec]:
    """The claims of a results folder's spec.json (the ones that still read as claims)."""
    found = []
    for entry in spec.get("findings") or []:
        try:
            found.append(FindingSpec.model_validate(entry))
        except ValidationError:
            continue  # written by another contio: the spec was valid when it ran
    return found


def evaluate_folder(folder: Path) -> list[Verdict]:
    """The verdict on every claim of a results folder's spec."""
    spec = _spec(folder)
    claims = claims_of(spec)
    if not claims:
        return []
    index = ResultsIndex.open(folder)
    try:
        cells = index.cells()
    finally:
        index.close()
    frame = load(folder)
    checks = check_cells(frame, folder_meta(folder))
    paired = (spec.get("analysis") or {}).get("t_test") == "paired"
    verdicts = []
    by_metric: dict[str, Any] = {}
    for claim in claims:
        if claim.metric not in by_metric:
            by_metric[claim.metric] = cell_data(frame, cells, spec, claim.metric)
        verdicts.append(evaluate(claim, by_metric[claim.metric], checks, paired))
    return verdicts


def document(folder: Path, verdicts: list[Verdict]) -> dict[str, Any]:
    """The content of findings.json."""
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "rules": RULES,
        "contio_version": __version__,
        "source": _source(folder),
        "verdicts": [verdict_json(v) for v in verdicts],
    }


def write_findings(folder: Path) -> list[Verdict]:
    """Evaluate every claim and write findings.json (replaced atomically: derived data)."""
    folder = Path(folder)
    verdicts = evaluate_folder(folder)
    replace_text(folder / FINDINGS_JSON, json.dumps(document(folder, verdicts), indent=2) + "\n")
    return verdicts


def read_findings(folder: Path) -> list[Verdict] | None:
    """The verdicts of findings.json, None when it is missing, unreadable or stale."""
    folder = Path(folder)
    try:
        data = json.loads((folder / FINDINGS_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return None
    if data.get("version") != VERSION or data.get("rules") != RULES:
        return None
    if data.get("contio_version") != __version__:
        return None
    if data.get("source") != _source(folder):
        return None
    try:
        return [verdict_from_json(v) for v in data.get("verdicts") or []]
    except (KeyError, TypeError, ValueError):
        return None


def current_findings(folder: Path) -> list[Verdict]:
    """findings.json's verdicts, written first when missing or stale."""
    found = read_findings(folder)
    return found if found is not None else write_findings(folder)
