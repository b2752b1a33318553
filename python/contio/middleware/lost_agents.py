"""What a node agent that died without its stop (SIGKILL, the OOM killer) left on its
node, and removing it.

A running agent holds the owner lock of its workdir (`<state>/qos-agents/<disk>/`, one per
brick disk: `node1`, `node1.d2`, …); a dead one's lock is free, and its undo journal still
lists the VNodes it made (cgroups holding brick processes, with their throttles and
weights) and the disk scheduler it replaced with BFQ. `contio qos down` (on the local
cluster) and `contio qos stop-agent` (on an inventory's host) remove them, as `contio
cleanup` would, and say what they could not remove and how to try again.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from contio.host.owner_lock import owner_alive
from contio.host.undo_journal import UndoJournal, describe_entry
from contio.middleware.agent import agents_root
from contio.middleware.disk_names import node_of


@dataclass
class LeftBehind:
    """What dead agents' workdirs held: removed now, or still there (with the fix)."""

    found: bool = False
    """Whether the node had a dead agent's workdir at all."""
    removed: list[str] = field(default_factory=list)
    remaining: list[str] = field(default_factory=list)

    def lines(self, node: str) -> list[str]:
        """What to tell the user about `node`'s dead agent (nothing when it had none)."""
        if self.found and not self.removed and not self.remaining:
            return [f"the agent of {node} had died; it left nothing behind"]
        said = []
        if self.removed:
            said.append(f"the agent of {node} had died; removed what it left: "
                        + ", ".join(self.removed))  # fmt: skip
        if self.remaining:
            said.append(f"the agent of {node} had died and left "
                        + "; ".join(self.remaining)
                        + " — remove it with `contio cleanup` (as root)")  # fmt: skip
        return said


def dead_workdirs(node: str) -> list[Path]:
    """The workdirs of `node`'s brick disks whose agent is not running."""
    root = agents_root()
    if not root.is_dir():
        return []
    return sorted(
        workdir
        for workdir in root.iterdir()
        if workdir.is_dir() and not workdir.is_symlink()
        and node_of(workdir.name) == node and not owner_alive(workdir)
    )  # fmt: skip


def remove_left_by(node: str) -> LeftBehind:
    """Undo what `node`'s dead agents left (VNodes, then the disks' schedulers: the
    journal's order backwards) and remove their workdirs."""
    result = LeftBehind()
    for workdir in dead_workdirs(node):
        result.found = True
        journal = UndoJournal(workdir / "journal.json")
        # VNodes first, as a stopping agent does: their weights are the scheduler's.
        newest_first = list(reversed(journal.entries))
        ordered = sorted(newest_first, key=lambda e: e["kind"] != "qos-vnode")
        for entry in ordered:
            try:
                journal.undo(entry)
                result.removed.append(_short(entry))
            except Exception as exc:  # noqa: BLE001 - remove the rest, say what stays
                result.remaining.append(f"{_short(entry)} ({exc}; journal {journal.path})")
        if not journal.entries:
            shutil.rmtree(workdir, ignore_errors=True)
    return result


def _short(entry: dict) -> str:
    """A journal entry as the user knows it: a VNode's cgroup, a disk's scheduler."""
    if entry["kind"] == "qos-vnode":
        return f"VNode {Path(entry['cgroup']).name}"
    if entry["kind"] == "qos-scheduler":
        return f"the BFQ scheduler on {entry['name']} (back to {entry['scheduler']})"
    return describe_entry(entry)
