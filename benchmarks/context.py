"""What every benchmark gets: where things are, how large to run, and where to report."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from benchmarks.errors import SetupError

REPO_ROOT = Path(__file__).absolute().parent.parent
WORKLOADS = REPO_ROOT / "python" / "contio" / "workload" / "ycsb"


def cache_dir() -> Path:
    """contio's cache (`CONTIO_CACHE`, default ~/.cache/contio): peers, results, scratch."""
    return Path(os.environ.get("CONTIO_CACHE", Path.home() / ".cache" / "contio"))


@dataclass
class BenchContext:
    """Shared settings of one `python -m benchmarks` invocation."""

    engine: Path
    """The contio-engine binary under test."""
    scale: float
    """1.0 = the sizes the goals are defined for; less for a quick look (not a valid result)."""
    console: Console
    """Progress goes to stderr through this console; tables to stdout."""
    repeat: int = 1
    """Rounds of measurements; a benchmark that supports it reports the median."""

    @property
    def quick(self) -> bool:
        """Whether sizes are below the ones the goals are defined for."""
        return self.scale < 1.0

    def scaled(self, full: int, minimum: int = 1) -> int:
        """A size or a duration at this run's scale, never below minimum."""
        return max(minimum, round(full * self.scale))

    def rounds(self, minimum: int) -> int:
        """Interleaved rounds: at least `minimum` at full size; `--repeat` with --quick."""
        return self.repeat if self.quick else max(minimum, self.repeat)

    def scratch(self) -> Path:
        """A directory on disk (not tmpfs) for data files; removed by the caller."""
        path = cache_dir() / "bench" / "scratch"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def progress(self, message: str) -> None:
        """One line of progress on stderr."""
        self.console.print(f"[dim]{message}[/dim]", highlight=False)


def workload_file(name: str) -> Path:
    """A workload file shipped in the repository, e.g. "workloada"."""
    path = WORKLOADS / name
    if not path.is_file():
        raise SetupError(f"workload file {path} is missing (the engine's workloads ship it)")
    return path


def require_tool(name: str) -> Path:
    """The path of an executable peer, or SetupError naming how to install it."""
    found = shutil.which(name)
    if not found:
        raise SetupError(f"{name} not found on PATH; run scripts/setup-bench.sh (or `make bench`)")
    return Path(found)
