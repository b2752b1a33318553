"""Running contio-engine as a measured child and reading its result document."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.child import ChildResult, run_child
from benchmarks.context import BenchContext
from benchmarks.errors import SetupError

RESULT_SCHEMA = "contio.engine.result/1"


@dataclass
class EngineRun:
    """One finished engine phase: the process facts and the JSON it wrote."""

    child: ChildResult
    document: dict[str, Any]

    @property
    def throughput(self) -> float:
        """Operations per second as the engine measured them over its own phase."""
        return float(self.document["throughput_ops_per_sec"])

    @property
    def operations(self) -> int:
        """Completed operations of all types."""
        return int(self.document["operations"])


def run_engine(
    ctx: BenchContext, args: list[str], *, timeout: float = 1800.0, launcher: Sequence[str] = ()
) -> EngineRun:
    """Runs `contio-engine ARGS... -json FILE` and returns its document. `launcher` is
    argv that execs the engine after setting something up (`PeerCgroup.launcher()`).

    SetupError when the engine exits non-zero or reports a status other than "ok":
    a benchmark built on a failed run would measure nothing.
    """
    with tempfile.TemporaryDirectory(prefix="contio-bench-") as tmp:
        json_path = Path(tmp) / "result.json"
        argv = [*launcher, str(ctx.engine), *args, "-json", str(json_path)]
        child = run_child(argv, timeout=timeout)
        if child.returncode != 0:
            raise SetupError(
                f"{' '.join(argv)}\nexited with code {child.returncode}:\n{child.tail()}"
            )
        try:
            document = json.loads(json_path.read_text())
        except (OSError, ValueError) as exc:
            raise SetupError(f"{' '.join(argv)}\nwrote no readable JSON: {exc}") from exc
    if document.get("schema") != RESULT_SCHEMA or document.get("status") != "ok":
        raise SetupError(
            f"{' '.join(argv)}\nschema {document.get('schema')!r}, status "
            f"{document.get('status')!r}: {document.get('error')}"
        )
    return EngineRun(child=child, document=document)


def engine_accepts(ctx: BenchContext, args: list[str]) -> bool:
    """Whether `contio-engine ARGS...` exits 0 (used to probe for features not landed yet)."""
    return run_child([str(ctx.engine), *args], timeout=60).returncode == 0


def engine_targets(ctx: BenchContext) -> str:
    """The text of `contio-engine targets` (empty when the engine cannot list them)."""
    child = run_child([str(ctx.engine), "targets"], timeout=60)
    return child.stdout if child.returncode == 0 else ""
