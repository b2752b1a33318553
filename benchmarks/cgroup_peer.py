"""A cgroup beside a container's, so that a host process competes for the CPU the way a
container does.

Why: under cgroup v1 with CFS group scheduling, a process in the root cgroup competes
at the top level thread by thread (each runnable thread an entity of weight 1024), while
Docker's containers compete as groups inside `/docker` (each container one entity of
weight `cpu.shares`, 1024 by default). An engine on the host and the same engine in a
container are therefore scheduled differently against the database container they
drive, which is not the cost of the container. A peer cgroup is made beside the
reference container's cgroup (same parent, same weight) in the CPU controllers only
(cpu and cpuacct under v1, the unified tree under v2); a host process started in it is
placed like a container and its CPU time is read like one.

Under v1 the other controllers (memory, pids, blkio, …) are left as they are: moving a
process out of its memory cgroup would take it out from under whoever set that one up.
"""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path

from benchmarks.errors import SetupError

CPU_CONTROLLERS = ("cpu", "cpuacct")
# Writes its own pid into each cgroup.procs file named before "--", then execs the rest.
LAUNCH = 'while [ "$1" != -- ]; do echo $$ > "$1"; shift; done; shift; exec "$@"'


def _mounts() -> dict[str, Path]:
    """Controller name (or "" for the v2 tree) → where its hierarchy is mounted."""
    mounts: dict[str, Path] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        separator = fields.index("-")
        fstype, options = fields[separator + 1], fields[separator + 3]
        point = Path(fields[4])
        if fstype == "cgroup2":
            mounts.setdefault("", point)
        elif fstype == "cgroup":
            for option in options.split(","):
                mounts.setdefault(option, point)
    return mounts


def _memberships(pid: int) -> dict[str, str]:
    """Controller (or "" for v2) → the cgroup path of `pid` in that hierarchy."""
    paths: dict[str, str] = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


class PeerCgroup:
    """A cgroup beside the one of the process `reference_pid` (a container's main process)."""

    def __init__(self, reference_pid: int, prefix: str = "contio-bench-host"):
        mounts, memberships = _mounts(), _memberships(reference_pid)
        v1 = all(c in mounts and c in memberships for c in CPU_CONTROLLERS)
        controllers = CPU_CONTROLLERS if v1 else ("",)
        if not v1 and ("" not in mounts or "" not in memberships):
            raise SetupError("no cgroup v1 cpu/cpuacct or v2 hierarchy found for the peer cgroup")
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        self.v1 = v1
        #: controller → (the reference's directory, the peer's directory)
        self.dirs: dict[str, tuple[Path, Path]] = {}
        for controller in controllers:
            reference = mounts[controller] / memberships[controller].lstrip("/")
            self.dirs[controller] = (reference, reference.parent / name)

    @property
    def name(self) -> str:
        return next(iter(self.dirs.values()))[1].name

    def create(self) -> None:
        """Make the peer directories with the reference's CPU weight."""
        for controller, (reference, peer) in self.dirs.items():
            peer.mkdir()
            weight = "cpu.shares" if self.v1 else "cpu.weight"
            if controller in ("cpu", "") and (reference / weight).is_file():
                (peer / weight).write_text((reference / weight).read_text())

    def weight(self) -> str:
        """The peer's CPU weight as the kernel shows it (`cpu.shares` or `cpu.weight`)."""
        controller = "cpu" if self.v1 else ""
        return (self.dirs[controller][1] / ("cpu.shares" if self.v1 else "cpu.weight")).read_text()

    def launcher(self) -> list[str]:
        """argv that moves itself into the peer cgroup, then execs the rest of its argv.

        A constant shell script with the paths as arguments (nothing is interpolated):
        `$$` is the shell's pid, which the exec hands on to the program, so the program
        starts inside the cgroup, threads and all. (A `preexec_fn` would do the same
        in Python, but is unsafe in a process with threads.)
        """
        procs = [str(peer / "cgroup.procs") for _, peer in self.dirs.values()]
        return ["/bin/sh", "-c", LAUNCH, "contio-peer-cgroup", *procs, "--"]

    def cpu_ns(self) -> int:
        """CPU time used in the peer cgroup so far."""
        if self.v1:
            return int((self.dirs["cpuacct"][1] / "cpuacct.usage").read_text())
        stat = (self.dirs[""][1] / "cpu.stat").read_text().split()
        return int(stat[stat.index("usage_usec") + 1]) * 1000

    def remove(self) -> None:
        """Remove the peer directories (their processes must have exited)."""
        for _, peer in self.dirs.values():
            with contextlib.suppress(FileNotFoundError):
                peer.rmdir()

    def __enter__(self) -> PeerCgroup:  # noqa: PYI034 (Self needs Python 3.11)
        self.create()
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
