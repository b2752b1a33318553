"""Cell executors by runtime name: how the containers of one cell phase are run.

`process` runs each container as a child process on this host (a local process
group); `docker` runs each as a Docker container, database targets' servers beside
their engine clients. Each class has `for_run(spec, context)` (a
`contio.cells.executor.RunContext`; called by `contio.run.runner`).
"""

from __future__ import annotations

RUNTIMES: dict[str, str] = {
    "process": "contio.cells.process_executor:ProcessCellExecutor",
    "docker": "contio.cells.docker_executor:DockerCellExecutor",
}
