"""One results folder as the report sees it: what was run, and one row per cell.

`Experiment.read(DIR)` gathers the spec, host, backends and cells of a folder and the
run phases (`contio.results.load`), and shapes the per-cell table every section uses:
one row per cell with its factor levels, status, the repetitions of its cumulative
throughput (steady ops/s summed over the cell's containers) and their statistics.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from contio.errors import ResultsFolderError
from contio.findings.caveats import RunChecks
from contio.findings.validity import check_cells, folder_meta
from contio.results.folder import load
from contio.results.index import INDEX_FILE, ResultsIndex
from contio.results.repetitions import complete_frame
from contio.stats import confidence_interval, mean
from contio.stats.backend_comparison import COMPARED_FACTORS, Analysis

# Factors that never tell cells apart in a chart (one level per run).
HIDDEN_FACTORS = ("runtime",)
UTILIZATION = ("cpu_percent", "disk_percent")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _meta(path: Path) -> dict[str, Any]:
    """Every key of the index's `meta` table (profile, sessions, io mechanism per session)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return {key: json.loads(value) for key, value in db.execute("SELECT key, value FROM meta")}
    finally:
        db.close()


@dataclass
class Experiment:
    """A results folder's metadata, its run phases and its per-cell statistics."""

    folder: Path
    spec: dict[str, Any]
    spec_text: str
    host: dict[str, Any]
    backends: list[dict[str, Any]]
    meta: dict[str, Any]
    runs: pd.DataFrame
    """One row per cell × repetition × container (`contio.results.load`)."""
    cells: pd.DataFrame
    """One row per cell (`cell_table`)."""
    factors: list[str] = field(default_factory=list)
    """Factor names in cell order (`backend`, `target`, `workload`/`mix`, …)."""
    cell_records: list[dict[str, Any]] = field(default_factory=list)
    """The results index's cells as stored (`ResultsIndex.cells()`: levels as a dict)."""
    _checks: RunChecks | None = field(default=None, repr=False)

    def checks(self) -> RunChecks:
        """The run's validity checks (`contio.findings.validity`), computed once for the
        validity section and the conclusions' caveats."""
        if self._checks is None:
            cells = {c["cell_key"]: c["levels"] for c in self.cell_records}
            self._checks = RunChecks(cells, check_cells(self.runs, folder_meta(self.folder)))
        return self._checks

    @classmethod
    def read(cls, folder: Path) -> Experiment:
        """Read a results folder; `ResultsFolderError` when it is not one."""
        folder = Path(folder)
        if not (folder / INDEX_FILE).is_file():
            raise ResultsFolderError(f"{folder} has no {INDEX_FILE}: not a contio results folder")
        index = ResultsIndex.open(folder)
        try:
            cells = index.cells()
            backends = index.backends()
            meta = _meta(folder / INDEX_FILE)
        finally:
            index.close()
        runs = load(folder)
        factors: list[str] = []
        for cell in cells:
            factors += [k for k in cell["levels"] if k not in factors]
        spec_path = folder / "spec.yaml"
        return cls(
            folder=folder,
            spec=_read_json(folder / "spec.json") or {},
            spec_text=spec_path.read_text(encoding="utf-8") if spec_path.is_file() else "",
            host=_read_json(folder / "host.json") or {},
            backends=backends,
            meta=meta,
            runs=runs,
            cells=cell_table(cells, runs, factors),
            factors=factors,
            cell_records=cells,
        )

    @property
    def name(self) -> str:
        return str(self.spec.get("name") or self.folder.name)

    def varying(self, cells: pd.DataFrame | None = None) -> list[str]:
        """Factors with more than one level among `cells` (all cells by default)."""
        table = self.cells if cells is None else cells
        return [
            f for f in self.factors
            if f not in HIDDEN_FACTORS and table[f].astype(str).nunique() > 1
        ]  # fmt: skip

    def done(self) -> pd.DataFrame:
        """The cells with at least one completed repetition."""
        return self.cells[self.cells["repetitions"] > 0]

    def compared_factor(self) -> str | None:
        """What the t-tests and conclusions compare against a baseline: `backend` when the
        done cells have two or more backends, else `target` with two or more targets."""
        varying = self.varying(self.done())
        return next((f for f in COMPARED_FACTORS if f in varying), None)

    @property
    def analysis(self) -> Analysis:
        """The spec's `analysis` section: which t-test, which baseline backend."""
        return Analysis.of_spec(self.spec)

    def io_mechanisms(self) -> list[str]:
        """How block I/O groups were applied, per session (`none` when nothing applied them)."""
        return [v for k, v in sorted(self.meta.items()) if k.startswith("io_mechanism.")]


def cell_table(cells: list[dict[str, Any]], runs: pd.DataFrame, factors: list[str]) -> pd.DataFrame:
    """One row per cell: levels, status, reason, members, per-repetition throughput and stats.

    Columns: the factors, `cell_key`, `cell_index`, `label`, `status`, `finished_at`, `reason`,
    `members`, `samples` (tuple of cumulative ops/s per completed repetition),
    `sample_repetitions` (their repetition numbers, for pairing), `repetitions`, `mean`, `ci_low`, `ci_high`, `half_width`, `per_container_mean`,
    `p95_ms`, `p99_ms`, `failed_operations`, and `cpu_percent`, `disk_percent`
    (NaN unless the run phases carry those columns).
    """
    ok = runs[runs["status"] == "ok"] if not runs.empty else runs
    rows = []
    for cell in cells:
        members = int(cell["members"])
        mine = ok[ok["cell_key"] == cell["cell_key"]] if not ok.empty else ok
        mine = complete_frame(mine, members)
        complete = not mine.empty
        sums = mine.groupby("repetition")["steady_ops_per_sec"].sum() if complete else None
        samples = tuple(float(v) for v in sums) if sums is not None else ()
        numbers = tuple(int(r) for r in sums.index) if sums is not None else ()
        ci = confidence_interval(samples, 0.95) if len(samples) >= 2 else None
        center = mean(list(samples)) if samples else math.nan
        rows.append(
            {
                **{f: cell["levels"].get(f) for f in factors},
                "cell_key": cell["cell_key"],
                "cell_index": cell["cell_index"],
                "label": cell["label"],
                "status": cell["status"],
                "finished_at": cell["finished_at"] or "",
                "reason": cell["reason"] or "",
                "members": members,
                "samples": samples,
                "sample_repetitions": numbers,
                "repetitions": len(samples),
                "mean": center,
                "ci_low": ci.low if ci else center,
                "ci_high": ci.high if ci else center,
                "half_width": ci.half_width if ci else math.nan,
                "per_container_mean": center / members if samples else math.nan,
                "p95_ms": float(mine["p95_latency_us"].mean()) / 1000 if complete else math.nan,
                "p99_ms": float(mine["p99_latency_us"].mean()) / 1000 if complete else math.nan,
                "failed_operations": int(mine["failed_operations"].sum()) if complete else 0,
                # Host utilization while the cell ran, when a sampler recorded it.
                **{
                    c: float(mine[c].mean()) if complete and c in mine else math.nan
                    for c in UTILIZATION
                },
            }
        )
    return pd.DataFrame(rows)


def group_label(row: pd.Series | dict[str, Any], factors: list[str]) -> str:
    """ "workload=workloada · threads=2" for the given factors of a cell (empty: "all cells")."""
    parts = [f"{f.removeprefix('properties.')}={row[f]}" for f in factors]
    return " · ".join(parts) if parts else "all cells"


def groups(table: pd.DataFrame, by: list[str]) -> list[tuple[dict[str, Any], pd.DataFrame]]:
    """Rows of `table` split by the levels of `by`, in first-seen order."""
    if not by:
        return [({}, table)]
    keys = list(dict.fromkeys(tuple(str(v) for v in row) for row in table[by].itertuples(False)))
    found = []
    for key in keys:
        mask = pd.Series(True, index=table.index)
        for factor, value in zip(by, key, strict=True):
            mask &= table[factor].astype(str) == value
        part = table[mask]
        found.append(({f: part.iloc[0][f] for f in by}, part))
    return found
