"""fio's own example job files (Debian's `fio-examples` package), made small and kept
inside a scratch directory, for running them by fio and by contio side by side.

The jobs stay what they are (engines, patterns, mixes, block sizes, job counts); only
what would take long or reach outside the scratch directory changes: sizes above
`CAP` become `CAP`, time-based jobs become size-bound (so both runs move the same
bytes), counts are capped, files go into the scratch directory, and options that run
programs or reach a device are dropped or mark the example as needing hardware.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

EXAMPLES = Path("/usr/share/doc/fio/examples")
CAP = 2 << 20
CAP_TEXT = "2m"
RUNTIME_CAP = 1
"""Seconds: every job stops by then (fio's `runtime` bounds a size-bound job too)."""
_SIZE = re.compile(r"^\s*(\d+)\s*([kmgtp]?)(i?b)?\s*$", re.IGNORECASE)
_SHIFT = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40, "p": 50}
_COUNT_CAPS = {"numjobs": 4, "nrfiles": 8, "loops": 2, "number_ios": 2000}
_SIZE_KEYS = ("size", "filesize", "io_size", "io_limit")
_DROPPED = (
    "time_based", "ramp_time", "startdelay", "exec_prerun", "exec_postrun",
    "cpus_allowed", "cpumask", "numa_cpu_nodes", "numa_mem_policy",
)  # fmt: skip


@dataclass(frozen=True)
class Example:
    """One example made small: its text, or why it needs what this machine lacks."""

    name: str
    text: str
    needs: str | None = None


def _bytes(text: str) -> int | None:
    found = _SIZE.match(text)
    if found is None:
        return None
    return int(found.group(1)) << _SHIFT[found.group(2).lower()]


def _capped_size(value: str) -> str:
    parts = value.split("-")
    out = []
    for part in parts:
        size = _bytes(part)
        out.append(CAP_TEXT if size is not None and size > CAP else part)
    return "-".join(out)


def _in_scratch(value: str) -> str | None:
    """A `filename` value with each file moved into the scratch directory; None for a
    device."""
    names = []
    for name in value.split(":"):
        if name in ("/dev/null", "/dev/zero"):
            names.append(name)
            continue
        if name.startswith("/dev/"):
            return None
        names.append(Path(name).name or "file")
    return ":".join(names)


def _line(key: str, value: str | None, scratch: Path) -> tuple[str | None, str | None]:
    """(the line to write or None to drop it, what the example needs or None)."""
    if key in _DROPPED:
        return None, None
    if value is None:
        return key, None
    if key in _SIZE_KEYS:
        return f"{key}={_capped_size(value)}", None
    if key in _COUNT_CAPS and value.isdigit():
        return f"{key}={min(int(value), _COUNT_CAPS[key])}", None
    if key == "runtime":
        return f"runtime={RUNTIME_CAP}", None
    if key == "directory":
        return f"directory={scratch}", None
    if key == "filename":
        moved = _in_scratch(value)
        if moved is None:
            return None, f"a device ({value})"
        return f"filename={moved}", None
    if key == "filename_format":
        return f"filename_format={Path(value).name}", None
    return f"{key}={value}", None


def small(path: Path, scratch: Path) -> Example:
    """`path` made small, its files in `scratch`."""
    lines = [f"[global]\ndirectory={scratch}\nruntime={RUNTIME_CAP}"]
    needs = None
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        stripped = raw.strip()
        if not stripped or stripped[0] in ";#" or stripped.startswith("["):
            lines.append(raw)
            continue
        key, sep, value = stripped.partition("=")
        line, need = _line(key.strip(), value.strip() if sep else None, scratch)
        needs = needs or need
        if line is not None:
            lines.append(line)
    return Example(path.name, "\n".join(lines) + "\n", needs)


def examples() -> list[Path]:
    """The example job files, by name."""
    return sorted(EXAMPLES.glob("*.fio"))


def totals(jobs: list[dict]) -> dict[str, int]:
    """Bytes and requests per direction, summed over fio's json `jobs`."""
    out: dict[str, int] = {}
    for d in ("read", "write", "trim"):
        out[f"{d}_bytes"] = sum(int(j[d]["io_bytes"]) for j in jobs)
        out[f"{d}_ios"] = sum(int(j[d]["total_ios"]) for j in jobs)
    return out


def streamed(text: str) -> bool:
    """Whether a job file moves its data over a socket (`ioengine=net`): a receiver reads
    what the stream holds when it looks, so its bytes and request sizes follow timing,
    not the job (of netio's 2 MiB, fio's receiver read 2,013,696 bytes alone and 2,044,469
    under the engine, in CI on 2026-12-03)."""
    return re.search(r"^\s*ioengine\s*=\s*net", text, re.MULTILINE) is not None


def time_bound(jobs: list[dict]) -> bool:
    """Whether a job of fio's json `jobs` ran until the runtime cap (so its bytes depend
    on the machine's speed, not on the job alone)."""
    return any(int(j.get("job_runtime", 0)) >= RUNTIME_CAP * 1000 * 0.9 for j in jobs)
