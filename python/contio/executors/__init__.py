"""Cell executors by runtime name: how the containers of one cell phase are run.

`process` runs each container as a child process on this host (a local process
group); `docker` runs each as a Docker container, database targets' servers beside
their engine clients. Each class has `for_run(spec, context)` (`contio.runner`).
"""

from __future__ import annotations

RUNTIMES: dict[str, str] = {
    "process": "contio.executors.process:ProcessCellExecutor",
    "docker": "contio.executors.docker:DockerCellExecutor",
}
