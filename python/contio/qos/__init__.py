"""Block I/O controls per container or local process group (paper 004's VNodes,
docs/papers.md).

- `limits`: `IoLimits` (read/write bps and iops limits, BFQ weight), validated;
- `device`: a path or mount → its whole disk (major:minor) and I/O scheduler;
- `hierarchy`: cgroup v1 `blkio` or v2 `io`, detected from the mount table;
- `control_files`: the lines each control writes (v1 and v2), and the buffered-write note;
- `controls`: `apply` / `remove`, with an `AppliedControls` record for results;
- `process_group`: a cgroup for local processes; `docker_cgroup`: a container's cgroup;
- `priority`: paper 004's priorities → per-node throttles.
"""

from contio.qos.controls import AppliedControl, AppliedControls, apply, remove
from contio.qos.device import BlockDevice, resolve
from contio.qos.docker_cgroup import cgroup_of_pid, container_cgroup
from contio.qos.hierarchy import Cgroup, detect
from contio.qos.limits import IoLimits, parse_rate
from contio.qos.priority import priority_limits, priority_throttles
from contio.qos.process_group import ProcessGroup

__all__ = [
    "AppliedControl",
    "AppliedControls",
    "BlockDevice",
    "Cgroup",
    "IoLimits",
    "ProcessGroup",
    "apply",
    "cgroup_of_pid",
    "container_cgroup",
    "detect",
    "parse_rate",
    "priority_limits",
    "priority_throttles",
    "remove",
    "resolve",
]
