"""Whether a directory on this host can hold a backend's data, seen without writing to it.

A base directory must exist, be a directory, be writable by this user, and lie on a
file system that keeps files: not a kernel pseudo file system (/proc, /sys, cgroups,
/dev …) and not a read-only mount. `contio plan` and `contio run` refuse one that is not
before anything is made; otherwise a run would make its results folder and then fail
at provisioning.
"""

from __future__ import annotations

import os
from pathlib import Path

from contio.host import mountinfo

PSEUDO_FILE_SYSTEMS = frozenset(
    {
        "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs",
        "devpts", "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc",
        "pstore", "rpc_pipefs", "securityfs", "selinuxfs", "sysfs", "tracefs",
    }
)  # fmt: skip
"""File systems the kernel makes up to show or control its own state: files written
there are not data (most refuse new directories)."""


def directory_problem(path: Path) -> str | None:
    """Why `path` cannot hold data directories, or None when it can."""
    if not path.exists():
        return f"{path} is not an existing directory (it does not exist)"
    if not path.is_dir():
        return f"{path} is not a directory"
    mount = mountinfo.mount_of(path)
    if mount is not None and mount.fstype in PSEUDO_FILE_SYSTEMS:
        return (
            f"{path} is on {mount.fstype} (mounted at {mount.mount_point}), a kernel "
            "pseudo file system that keeps no data; name a directory on a disk"
        )
    if mount is not None and "ro" in mount.options.split(","):
        return f"{path} is on a read-only mount ({mount.mount_point})"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{path} is not writable by this user (uid {os.geteuid()})"
    return None
