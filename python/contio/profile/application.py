"""The spec `contio profile` runs: the user's spec, narrowed to one application, at
several container counts (1, 2, 4 by default), with its claims left out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contio.errors import SpecError
from contio.experiment.matrix import Cell, expand
from contio.experiment.spec import ExperimentSpec

DEFAULT_COUNTS = (1, 2, 4)
"""Copies of the application a profile runs at: alone, then two and four at once."""


def application_levels(cell: Cell) -> dict[str, Any]:
    """A cell's levels without its container count: what the application is."""
    return {k: v for k, v in cell.level.items() if k != "containers"}


def profiling_spec(spec: ExperimentSpec, counts: Sequence[int], source: str) -> ExperimentSpec:
    """`spec` with `containers` set to `counts` and no `findings`.

    `SpecError` (exit 2) when the spec is not one application: explicit `cells`, a
    factor with several levels, or a mix of several applications (a profile measures
    one; `contio advise` combines profiles)."""
    if not counts or min(counts) < 1:
        raise SpecError("--containers", "needs container counts of at least 1, e.g. 1,2,4")
    if 1 not in counts:
        raise SpecError(
            "--containers", "must include 1: the application alone is what every other "
            "count is compared with, e.g. 1,2,4"
        )  # fmt: skip
    if spec.cells is not None:
        raise SpecError(
            "cells", "a profile runs one application at several container counts: "
            "give it factors with one level each, not explicit cells"
        )  # fmt: skip
    factors = spec.factors.model_copy(update={"containers": sorted(set(counts))})
    profiled = spec.model_copy(update={"factors": factors, "findings": []})
    cells = expand(profiled, source)
    applications = {repr(sorted(application_levels(c).items())) for c in cells}
    if len(applications) > 1:
        varying = sorted(
            name for name in application_levels(cells[0])
            if len({repr(c.level.get(name)) for c in cells}) > 1
        )  # fmt: skip
        raise SpecError(
            "factors", f"a profile is of one application, and these factors make "
            f"{len(applications)} ({', '.join(varying)} vary): pick one level of each, "
            "or a spec profile (-P) that does"
        )  # fmt: skip
    kinds = {(m.kind, m.target, str(m.workload)) for m in cells[0].members}
    if len(kinds) > 1:
        raise SpecError(
            "mix", "a profile is of one application, and this mix has "
            f"{len(kinds)}: profile each on its own"
        )  # fmt: skip
    return profiled
