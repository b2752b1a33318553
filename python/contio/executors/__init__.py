"""Cell executors by runtime name: how the containers of one cell phase are run.

`process` runs each container as a child process on this host (a local process
group); a Docker executor registers here when the multi-container cell API lands.
"""

from __future__ import annotations

RUNTIMES: dict[str, str] = {
    "process": "contio.executors.process:ProcessCellExecutor",
}
