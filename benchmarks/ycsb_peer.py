"""YCSB 0.17.0 as a peer: its class path (installed by scripts/setup-bench.sh) and command."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmarks.context import cache_dir
from benchmarks.errors import SetupError

YCSB_VERSION = "0.17.0"
CORE_WORKLOAD = "site.ycsb.workloads.CoreWorkload"


def ycsb_jars() -> Path:
    """The directory of YCSB's jars; SetupError naming the set-up script when absent."""
    jars = cache_dir() / "ycsb" / "jars"
    if not (jars / f"core-{YCSB_VERSION}.jar").is_file():
        raise SetupError(f"YCSB {YCSB_VERSION} not found in {jars}; run scripts/setup-bench.sh")
    if shutil.which("java") is None:
        raise SetupError("java not found on PATH (Debian: default-jre-headless)")
    return jars


def ycsb_run_argv(workload: Path, properties: dict[str, str], threads: int) -> list[str]:
    """The argv of YCSB's transaction phase with BasicDB, as `java -cp 'jars/*' …`."""
    argv = [
        "java",
        "-cp",
        f"{ycsb_jars()}/*",
        "site.ycsb.Client",
        "-t",
        "-db",
        "site.ycsb.BasicDB",
        "-P",
        str(workload),
        # YCSB's own workload files name the class; contio's may not, so say it here.
        "-p",
        f"workload={CORE_WORKLOAD}",
    ]
    for key, value in properties.items():
        argv += ["-p", f"{key}={value}"]
    return [*argv, "-threads", str(threads)]
