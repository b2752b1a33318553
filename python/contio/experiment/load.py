"""Reading a spec: YAML text → the validated `ExperimentSpec`, then the checks across it.

The model (`contio.experiment.spec`) is built first; the checks across its fields
(`contio.experiment.checks`) run on the built model, and once those pass, the checks of
its cells (`contio.experiment.cell_checks`), which need the cells expanded. Every
problem found is raised together in one `InvalidSpecError`.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from contio.backends import registry
from contio.errors import InvalidSpecError, SpecError, UsageError
from contio.experiment.cell_checks import check_cells
from contio.experiment.checks import cross_check
from contio.experiment.spec import ExperimentSpec, apply_profile
from contio.input_files import InputFileProblem, read_input_text, resolved
from contio.validation_errors import problems_of
from contio.yaml_input import DuplicateKeyError, InputShapeError, read_yaml

DEFAULT_SPEC_NAME = "default.yaml"


def validate_spec(
    data: Any, source: str, base_dir: Path, profile: str | None = None
) -> ExperimentSpec:
    """Validate parsed YAML (after merging `profile`); raise `InvalidSpecError` listing
    every bad field."""
    if not isinstance(data, dict):
        raise InvalidSpecError(source, [SpecError("", "a spec is a mapping of keys to values")])
    merged = registry.anchor_spec_paths(apply_profile(data, profile, source), base_dir)
    chosen = profile if profile is not None else merged.get("default_profile")
    where = f"{source} (profile {chosen})" if chosen else source
    try:
        spec = ExperimentSpec.model_validate(merged, context={"base_dir": base_dir})
    except ValidationError as exc:
        raise InvalidSpecError(where, problems_of(exc.errors(), ExperimentSpec)) from None
    problems = cross_check(spec, base_dir)
    if not problems:
        problems = check_cells(spec)  # expands the cells: needs consistent fields first
    if problems:
        raise InvalidSpecError(where, problems)
    return spec


def parse_spec_text(
    text: str, source: str, base_dir: Path, profile: str | None = None
) -> ExperimentSpec:
    """Parse and validate a spec's YAML text; `base_dir` anchors relative paths."""
    try:
        data = read_yaml(text)
    except (DuplicateKeyError, InputShapeError) as exc:
        raise InvalidSpecError(source, [SpecError("", str(exc))]) from None
    except yaml.YAMLError as exc:
        raise InvalidSpecError(source, [SpecError("", f"not valid YAML: {exc}")]) from None
    return validate_spec(data, source, base_dir, profile)


def read_spec_file(path: Path, profile: str | None = None) -> tuple[ExperimentSpec, str]:
    """Read and validate a spec file; returns the spec and its text (kept with the results)."""
    try:
        text = read_input_text(path, "a spec file (YAML text)")
    except InputFileProblem as exc:
        raise UsageError(f"cannot read spec: {exc}") from None
    return parse_spec_text(text, str(path), resolved(path).parent, profile), text


def read_default_spec(profile: str | None = None) -> tuple[ExperimentSpec, str]:
    """The embedded default experiment shipped with the package."""
    with as_file(files("contio.experiment") / DEFAULT_SPEC_NAME) as path:
        return read_spec_file(Path(path), profile)
