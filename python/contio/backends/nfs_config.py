"""NFS export lines and client mount options: validation and generation (no I/O).

Paper 002 (docs/papers.md) compares exports with `sync` (the server acknowledges
after data reach the disk) and `async` (before); that choice is `export_mode`, never an
entry of `export_options`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

# exports(5) options contio accepts besides sync/async (flags, or name=value for the last).
EXPORT_FLAGS = {
    "rw", "ro", "root_squash", "no_root_squash", "all_squash", "no_all_squash",
    "subtree_check", "no_subtree_check", "secure", "insecure", "wdelay", "no_wdelay",
    "hide", "nohide", "crossmnt", "insecure_locks", "no_auth_nlm",
}  # fmt: skip
EXPORT_VALUED = {"fsid", "anonuid", "anongid", "sec"}

# nfs(5) client options: flags, and options with a value pattern.
MOUNT_FLAGS = {
    "hard", "soft", "softerr", "sync", "async", "ac", "noac", "lock", "nolock",
    "cto", "nocto", "intr", "nointr", "rw", "ro", "noatime", "relatime",
    "sharecache", "nosharecache", "resvport", "noresvport",
}  # fmt: skip
MOUNT_VALUED = {
    "vers": r"3|4|4\.0|4\.1|4\.2",
    "nfsvers": r"3|4|4\.0|4\.1|4\.2",
    "proto": r"tcp|udp|rdma|tcp6|udp6",
    "port": r"\d{1,5}",
    "rsize": r"\d+",
    "wsize": r"\d+",
    "timeo": r"\d+",
    "retrans": r"\d+",
    "actimeo": r"\d+",
    "acregmin": r"\d+",
    "acregmax": r"\d+",
    "acdirmin": r"\d+",
    "acdirmax": r"\d+",
    "nconnect": r"\d{1,2}",
    "lookupcache": r"all|none|pos|positive",
    "local_lock": r"all|flock|posix|none",
    "sec": r"sys|krb5|krb5i|krb5p|none",
}


def check_export_options(options: Sequence[str]) -> list[str]:
    """The options, or ValueError naming the first that exports(5) does not know here."""
    for opt in options:
        name, _, value = opt.partition("=")
        if name in ("sync", "async"):
            raise ValueError(f"'{name}' is set by 'export_mode' (sync or async), not here")
        if name in EXPORT_FLAGS and not value:
            continue
        if name in EXPORT_VALUED and re.fullmatch(r"[A-Za-z0-9:_-]+", value):
            continue
        allowed = ", ".join(sorted(EXPORT_FLAGS | {f"{v}=…" for v in EXPORT_VALUED}))
        raise ValueError(f"unknown export option {opt!r}; allowed: {allowed}")
    return list(options)


def check_mount_options(options: Sequence[str]) -> list[str]:
    """The options, or ValueError naming the first that nfs(5) does not know here."""
    for opt in options:
        name, sep, value = opt.partition("=")
        if not sep and name in MOUNT_FLAGS:
            continue
        pattern = MOUNT_VALUED.get(name)
        if sep and pattern and re.fullmatch(pattern, value):
            continue
        if name == "addr":
            raise ValueError("'addr' is set from 'server', not in mount_options")
        allowed = ", ".join(sorted(MOUNT_FLAGS | {f"{k}=…" for k in MOUNT_VALUED}))
        raise ValueError(f"bad NFS mount option {opt!r}; allowed: {allowed}")
    return list(options)


def export_line(path: Path, clients: str, mode: str, options: Sequence[str]) -> str:
    """One /etc/exports line: `PATH CLIENTS(sync|async,OPTIONS)`."""
    if mode not in ("sync", "async"):
        raise ValueError(f"export mode must be 'sync' or 'async', not {mode!r}")
    if re.search(r"\s", str(path)):
        raise ValueError(f"export path {path} contains white space")
    return f"{path} {clients}({','.join([mode, *options])})"


def volume_driver_opts(server: str, export_path: str, options: Sequence[str]) -> dict[str, str]:
    """Docker local-driver options that mount `server:export_path` over NFS."""
    return {
        "type": "nfs",
        "o": ",".join([f"addr={server}", *options]),
        "device": f":{export_path}",
    }


def host_mount_argv(
    server: str, export_path: str, target: Path, options: Sequence[str]
) -> list[str]:
    """`mount -t nfs` of the export on this host."""
    argv = ["mount", "-t", "nfs"]
    if options:
        argv += ["-o", ",".join(options)]
    return [*argv, f"{server}:{export_path}", str(target)]
