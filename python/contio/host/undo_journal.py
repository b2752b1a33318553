"""A persisted list of what a backend (or a cluster) created, undone in reverse order.

Each resource is written to a JSON file *before* the step that depends on it goes on,
so teardown — in the same process, or a later `contio cluster down` after a crash —
finds every loop device, mount, namespace and firewall rule that was made, and nothing
that was not. Entries that fail to undo stay in the journal for the next attempt.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contio.errors import BackendError
from contio.host import command, mountinfo
from contio.host.device_contents import wipe_own_signature
from contio.host.owned_dirs import remove_tree

Entry = dict[str, Any]


class UndoJournal:
    """Resources created so far, stored in `path` (a JSON list), undone last-first."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: list[Entry] = []
        if path.exists():
            self.entries = json.loads(path.read_text(encoding="utf-8"))

    def record(self, kind: str, **fields: Any) -> Entry:
        """Note that a resource of `kind` now exists; saved before returning."""
        if kind not in UNDO_ACTIONS and kind not in DEFERRED_UNDO_ACTIONS:
            raise ValueError(f"unknown resource kind {kind!r}")
        entry = {"kind": kind, **fields}
        self.entries.append(entry)
        self._save()
        return entry

    def undo(self, entry: Entry) -> None:
        """Undo one recorded resource now and forget it."""
        _undo_action(entry["kind"])(entry)
        self.entries.remove(entry)
        if self.entries:
            self._save()
        else:  # the journal may live in a directory that was the first thing made
            self.path.unlink(missing_ok=True)

    def find(self, kind: str) -> list[Entry]:
        """The recorded entries of one kind, oldest first."""
        return [e for e in self.entries if e["kind"] == kind]

    def undo_all(self) -> None:
        """Undo everything, newest first; raise `BackendError` listing what could not be undone."""
        failures: list[str] = []
        for entry in reversed(list(self.entries)):
            try:
                self.undo(entry)
            except Exception as exc:  # noqa: BLE001 - keep undoing the rest, report all
                failures.append(f"{describe_entry(entry)}: {exc}")
        if failures:
            raise BackendError(
                f"teardown left {len(failures)} resource(s) (journal {self.path}):\n  "
                + "\n  ".join(failures)
            )
        self.path.unlink(missing_ok=True)

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.entries, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


def describe_entry(entry: Entry) -> str:
    """A one-line description of a journal entry for error messages."""
    fields = ", ".join(f"{k}={v}" for k, v in entry.items() if k != "kind")
    return f"{entry['kind']}({fields})"


def _remove_dir(entry: Entry) -> None:
    # Never through a symbolic link, never into a file system still mounted inside.
    remove_tree(Path(entry["path"]))


def _remove_file(entry: Entry) -> None:
    Path(entry["path"]).unlink(missing_ok=True)


def _unmount(entry: Entry) -> None:
    target = entry["target"]
    # A FUSE client or a brick may hold the mount for a moment after its last user
    # exits; retry briefly, then detach lazily so no mount is left behind.
    for _ in range(10):
        if not mountinfo.is_mount_point(target):
            return
        if command.run(["umount", target], check=False).returncode == 0:
            continue
        time.sleep(0.3)
    if mountinfo.is_mount_point(target):
        command.run(["umount", "-l", target])


def _forget_btrfs(entry: Entry) -> None:
    # The kernel keeps scanned btrfs member devices registered after unmount.
    for device in entry["devices"]:
        command.run(["btrfs", "device", "scan", "--forget", device], check=False)


def _wipe_signatures(entry: Entry) -> None:
    # Only the file system contio made (its type and UUID): one made on the device since
    # (after a crash, before `contio cleanup`) is the user's. An entry of an older contio
    # names no UUID: its signature is left rather than guessed at.
    if "uuid" in entry:
        wipe_own_signature(entry["device"], entry["type"], entry["uuid"])


def _remove_volume_group(entry: Entry) -> None:
    command.run(["vgremove", "--force", "--yes", entry["vg"]])


def _remove_physical_volumes(entry: Entry) -> None:
    command.run(["pvremove", "--force", "--yes", *entry["devices"]])


def _delete_netns(entry: Entry) -> None:
    _kill_netns_processes(entry)
    if entry["name"] in command.run(["ip", "netns", "list"]).stdout.split():
        command.run(["ip", "netns", "delete", entry["name"]])


def netns_pids(name: str) -> list[int]:
    """Processes whose network namespace is `name`."""
    proc = command.run(["ip", "netns", "pids", name], check=False)
    return [int(p) for p in proc.stdout.split()] if proc.returncode == 0 else []


def _kill_netns_processes(entry: Entry) -> None:
    name = entry["name"]
    for _ in range(50):
        pids = netns_pids(name)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
    raise BackendError(f"processes in network namespace {name} survive SIGKILL: {pids}")


def _delete_link(entry: Entry) -> None:
    if command.run(["ip", "link", "show", entry["name"]], check=False).returncode == 0:
        command.run(["ip", "link", "delete", entry["name"]])


def _delete_iptables_rule(entry: Entry) -> None:
    rule = [entry["chain"], *entry["rule"]]
    table = ["-t", entry.get("table", "filter")]
    # `-C` first: the rule may be gone already (firewall reloaded, dockerd restarted).
    if command.run(["iptables", *table, "-C", *rule], check=False).returncode == 0:
        command.run(["iptables", *table, "-D", *rule])


UNDO_ACTIONS: dict[str, Callable[[Entry], None]] = {
    "dir": _remove_dir,
    "file": _remove_file,
    "mount": _unmount,
    "btrfs-members": _forget_btrfs,
    "fs-signature": _wipe_signatures,
    "lvm-vg": _remove_volume_group,
    "lvm-pv": _remove_physical_volumes,
    "netns": _delete_netns,
    "netns-processes": _kill_netns_processes,
    "link": _delete_link,
    "iptables-rule": _delete_iptables_rule,
}

# Kinds whose undo needs a subsystem that this module must not import at load time;
# resolved on use so a journal left by a crash can be undone by any contio process.
DEFERRED_UNDO_ACTIONS: dict[str, str] = {
    "gluster-volume": "contio.gluster.volume:undo_volume",
    "gluster-cluster": "contio.gluster.local_cluster:undo_cluster",
    "nfs-export": "contio.backends.nfs:undo_export",
    "loop": "contio.host.loop_device:undo_loop",
    "slowdev": "contio.host.slow_device:undo_slowdev",
    "qos-vnode": "contio.middleware.vnode:undo_vnode",
    "qos-scheduler": "contio.middleware.disk_scheduler:undo_scheduler",
    "qos-middleware": "contio.middleware.deployment:undo_middleware",
}


def _undo_action(kind: str) -> Callable[[Entry], None]:
    if kind in UNDO_ACTIONS:
        return UNDO_ACTIONS[kind]
    module, _, name = DEFERRED_UNDO_ACTIONS[kind].partition(":")
    return getattr(importlib.import_module(module), name)
