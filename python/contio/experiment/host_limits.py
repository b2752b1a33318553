"""How many engines one cell may start on this host: bounded by its CPUs, its free memory
and its task (pid) limit, so a `containers: [100000]` is refused by `contio plan`
with the number this host allows, not accepted and left to thrash or fail mid-run.

A cell's engines (and database servers) run together; cells run one after another,
so the bound is per cell. The figures are deliberately generous: they refuse what
cannot measure storage here, not a busy but workable cell.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

from contio.errors import SpecError
from contio.experiment.matrix import Cell
from contio.experiment.parts import memory_bytes
from contio.experiment.spec import ExperimentSpec

ENGINES_PER_CPU = 32
"""Most engines per CPU: past that, each engine gets too little CPU to keep storage busy,
and the cell measures the scheduler."""
ENGINE_MEMORY = 32 << 20
"""Memory one engine may take (a YCSB engine on the null target holds about 5 MiB; an
embedded engine's cache more)."""
SERVER_MEMORY = 512 << 20
"""Memory a database server takes when its target has no `memory_limit`."""
ENGINE_TASKS = 4
"""Tasks (threads) of one engine besides its client threads: main, status, timers."""
CONTAINER_TASKS = 16
"""Tasks Docker adds for each container (its shim, the server's own threads)."""
ENGINE_MAX_THREADS = 4096
"""The engine's own bound on client threads: a larger `threads` is refused by the engine's
check, which names it, so it is not counted past this here."""
TASK_SHARE = 2
"""A cell may take half the tasks still free: the rest of the host needs them too."""


@dataclass(frozen=True)
class HostCapacity:
    """What this host has for one cell's engines."""

    cpus: int
    memory_bytes: int
    """Memory available now (MemAvailable)."""
    free_tasks: int
    """Tasks (processes and threads) that can still be started under every limit."""

    @classmethod
    def here(cls) -> HostCapacity:
        return cls(_cpus(), _available_memory(), _free_tasks())


@dataclass(frozen=True)
class CellDemand:
    """What one cell's engines need when they all run."""

    engines: int
    memory_bytes: int
    tasks: int


def cell_demand(spec: ExperimentSpec, cell: Cell) -> CellDemand:
    docker = cell.level.get("runtime") == "docker"
    memory = tasks = 0
    for member in cell.members:
        memory += ENGINE_MEMORY
        tasks += (
            min(member.threads, ENGINE_MAX_THREADS)
            + ENGINE_TASKS
            + (CONTAINER_TASKS if docker else 0)
        )
        if member.database:
            limit = spec.target_options_for(member.target).memory_limit
            memory += memory_bytes(limit) if limit else SERVER_MEMORY
            tasks += CONTAINER_TASKS
    return CellDemand(len(cell.members), memory, tasks)


def capacity_problems(
    spec: ExperimentSpec, cells: list[Cell], host: HostCapacity | None = None
) -> list[SpecError]:
    """A problem for each `containers` level whose cells this host cannot start."""
    host = host or HostCapacity.here()
    found: dict[str, SpecError] = {}
    for cell in cells:
        if len(cell.members) <= 1:
            continue  # one engine: its threads are the engine's check's to refuse
        demand = cell_demand(spec, cell)
        why = _over(demand, host)
        if why is None:
            continue
        path = containers_path(spec, cell)
        per = (
            f" ({demand.engines} engines in the cell)"
            if demand.engines != cell.level.get("containers")
            else ""
        )
        found.setdefault(
            path,
            SpecError(
                path,
                f"{cell.level.get('containers')} containers{per} are more than this host can "
                f"start at once: {why}",
            ),
        )
    return list(found.values())


def _over(demand: CellDemand, host: HostCapacity) -> str | None:
    """Why `demand` exceeds `host`, with the most engines it allows; None when it fits."""
    memory = max(demand.memory_bytes // max(demand.engines, 1), 1)
    tasks = max(demand.tasks // max(demand.engines, 1), 1)
    by_memory = (
        f"{host.memory_bytes >> 20} MiB of memory available, about {memory >> 20} MiB per engine"
    )
    by_tasks = f"half of the {host.free_tasks} tasks the pid limits leave free, {tasks} per engine"
    bounds = [
        (host.cpus * ENGINES_PER_CPU, f"{ENGINES_PER_CPU} per CPU, {_cpus_text(host.cpus)}"),
        (host.memory_bytes // memory, by_memory),
        (host.free_tasks // TASK_SHARE // tasks, by_tasks),
    ]
    most, reason = min(bounds, key=lambda bound: bound[0])
    if demand.engines <= most:
        return None
    return f"at most {most} engines here ({reason})"


def _cpus_text(count: int) -> str:
    return "1 CPU" if count == 1 else f"{count} CPUs"


def containers_path(spec: ExperimentSpec, cell: Cell) -> str:
    """Where the spec gives `cell`'s containers level."""
    levels = spec.factors.containers or []
    level = cell.level.get("containers")
    if level in levels:
        return f"factors.containers[{levels.index(level)}]"
    for i, entry in enumerate(spec.cells or []):
        if isinstance(entry, dict) and "containers" in entry:
            return f"cells[{i}].containers"
    return "factors.containers"


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _available_memory() -> int:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _number(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # `max`: no limit


def _free_tasks() -> int:
    """Tasks that can still start: the kernel's limits less the tasks running, and this
    process's cgroups' `pids.max` less their `pids.current`."""
    running = _running_tasks()
    limits = [
        limit - running
        for limit in (
            _number(Path("/proc/sys/kernel/pid_max")),
            _number(Path("/proc/sys/kernel/threads-max")),
        )
        if limit is not None
    ]
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft != resource.RLIM_INFINITY and os.geteuid() != 0:  # root is not held to it
        limits.append(soft - running)
    limits += _cgroup_free_tasks()
    return max(0, min(limits, default=1 << 22))


def _running_tasks() -> int:
    try:
        # The fourth field of loadavg: runnable/total scheduling entities (threads).
        return int(Path("/proc/loadavg").read_text(encoding="utf-8").split()[3].split("/")[1])
    except (OSError, ValueError, IndexError):
        return 0


def _cgroup_free_tasks() -> list[int]:
    """`pids.max - pids.current` of this process's cgroup (v2, or v1's pids controller)
    and each of its ancestors."""
    try:
        lines = Path("/proc/self/cgroup").read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        _, controllers, path = [*line.split(":", 2), "", ""][:3]
        if controllers == "":
            root = Path("/sys/fs/cgroup")  # v2: one hierarchy
        elif "pids" in controllers.split(","):
            root = Path("/sys/fs/cgroup/pids")  # v1: the pids controller's own
        else:
            continue
        group = root / path.lstrip("/")
        for place in (group, *group.parents):
            if place == root.parent:
                break
            limit, current = _number(place / "pids.max"), _number(place / "pids.current")
            if limit is not None and current is not None:
                found.append(limit - current)
    return found
