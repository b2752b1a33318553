"""The labels contio puts on every container, network and volume it creates.

The experiment label lets teardown find everything one experiment made. The owner
labels (host, pid and the process's start time) let a later run tell whether the
process that made a resource is still alive: a pid alone can be reused after a
crash, the pair (pid, start time) cannot.
"""

from __future__ import annotations

from contio.host.process import HOST, PID, PID_START, Owner

__all__ = ["HOST", "PID", "PID_START", "Owner", "resource_labels"]

EXPERIMENT = "contio.experiment"
ROLE = "contio.role"
RECIPE_HASH = "contio.recipe-hash"
RECIPE_NAME = "contio.recipe"


def resource_labels(experiment: str, role: str, owner: Owner) -> dict[str, str]:
    """Every label a container, network or volume of `experiment` carries."""
    return {EXPERIMENT: experiment, ROLE: role, **owner.labels()}
