"""Finding and invoking the `contio-engine` binary.

Python talks to the engine through arguments in and versioned JSON out
(`docs/engine-interface.md`); it never parses the human-readable text.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path

from contio.engine.result import EngineResult, read_result
from contio.errors import EngineError, EngineNotFoundError, EngineOutputError, EngineUsageError

ENGINE_NAME = "contio-engine"


def _candidates() -> list[Path]:
    """Places the engine may be, most specific first."""
    places: list[Path] = []
    override = os.environ.get("CONTIO_ENGINE")
    if override:
        places.append(Path(override))
    # maturin installs the binary into the scripts dir of the environment.
    places.append(Path(sysconfig.get_path("scripts")) / ENGINE_NAME)
    places.append(Path(sys.executable).parent / ENGINE_NAME)
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        places.append(Path(sysconfig.get_path("scripts", scheme=user_scheme)) / ENGINE_NAME)
    on_path = shutil.which(ENGINE_NAME)
    if on_path:
        places.append(Path(on_path))
    return places


def find_engine() -> Path:
    """The path of the `contio-engine` binary; `CONTIO_ENGINE` overrides the search."""
    searched = _candidates()
    for path in searched:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    raise EngineNotFoundError([str(p) for p in searched])


def ycsb_args(
    phase: str,
    target: str,
    workload_files: Sequence[Path],
    properties: Mapping[str, str],
    threads: int,
    json_path: Path,
) -> list[str]:
    """Arguments (after the binary) for one YCSB phase; later `-p` overrides win."""
    if phase not in ("load", "run"):
        raise ValueError(f"phase must be load or run, not {phase!r}")
    args = [phase, target]
    for path in workload_files:
        args += ["-P", str(path)]
    for key, value in properties.items():
        args += ["-p", f"{key}={value}"]
    return [*args, "-threads", str(threads), "-json", str(json_path)]


def interpret_exit(exit_code: int, stderr_text: str, json_path: Path) -> EngineResult:
    """Turn an engine exit into its result document or a typed error.

    Exit 0 and 1 both write the document (1: the phase ran but failed, and the
    document says why); 2 means the input was refused and nothing ran.
    """
    message = _last_lines(stderr_text)
    if exit_code == 2:
        raise EngineUsageError(message or "the engine refused its input (exit code 2)")
    if exit_code == 0:
        return read_result(json_path)
    if exit_code == 1:
        try:
            result = read_result(json_path)
        except EngineOutputError:
            raise EngineError(f"the engine failed and wrote no result: {message}", 1) from None
        raise EngineError(f"the {result.phase} phase {result.status}: {result.error}", 1)
    if exit_code < 0:
        raise EngineError(f"the engine was killed by signal {-exit_code}: {message}", exit_code)
    raise EngineError(f"the engine exited with code {exit_code}: {message}", exit_code)


def run_engine(args: Sequence[str], json_path: Path) -> EngineResult:
    """Run the engine to completion with `args` (which write JSON to `json_path`).

    For short runs (validation, tests); long phases go through a runtime, which
    forwards signals and keeps the engine's output.
    """
    done = subprocess.run(
        [str(find_engine()), *args],
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    return interpret_exit(done.returncode, done.stderr, json_path)


def engine_version() -> str:
    """The engine's `--version` line."""
    done = subprocess.run(
        [str(find_engine()), "--version"],
        check=False,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() or done.stderr.strip()


def _last_lines(text: str, count: int = 5) -> str:
    # The engine's message is at the end of stderr, after any status lines; the usage
    # line it adds to a refusal lists every option, which says nothing about this one.
    lines = [
        line for line in text.strip().splitlines() if line.strip() and not line.startswith("usage:")
    ]
    return "\n".join(lines[-count:])
