"""The adaptive benchmark's two specs are valid and differ only in their stopping rule."""

from __future__ import annotations

from pathlib import Path

from benchmarks import adaptive
from contio.spec import parse_spec_text


def test_the_two_methods_run_the_same_cell(tmp_path: Path):
    fixed = parse_spec_text(
        adaptive._spec_text("null", "{rule: fixed-ops, operations: 100000, repetitions: 5}",
                            1000, tmp_path),
        "fixed", tmp_path,
    )  # fmt: skip
    adaptive_spec = parse_spec_text(
        adaptive._spec_text("null", "{rule: adaptive, operations: 20000, ci_target: 0.02}",
                            1000, tmp_path),
        "adaptive", tmp_path,
    )  # fmt: skip
    assert fixed.stop.engine_properties() == {"operationcount": "100000", "maxexecutiontime": "0"}
    assert adaptive_spec.stop.adaptive and adaptive_spec.stop.ci_target == 0.02
    assert fixed.model_dump(exclude={"stop"}) == adaptive_spec.model_dump(exclude={"stop"})
