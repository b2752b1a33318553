"""Whether this kernel can be an NFS client (and server): /proc/filesystems, else modprobe."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from contio.host import command

PROC_FILESYSTEMS = Path("/proc/filesystems")


@dataclass(frozen=True)
class NfsSupport:
    """The answer, and why."""

    available: bool
    reason: str


def _listed(fstypes: Sequence[str], text: str) -> bool:
    names = {line.split()[-1] for line in text.splitlines() if line.split()}
    return any(f in names for f in fstypes)


def probe(
    role: str = "client",
    proc_filesystems: Path = PROC_FILESYSTEMS,
    modprobe: str = "modprobe",
) -> NfsSupport:
    """Detect kernel NFS support; `role` is 'client' (nfs, nfs4) or 'server' (nfsd).

    Not listed in `proc_filesystems`: asks `modprobe --dry-run` whether the module could
    be loaded (`modprobe` names the program, for tests).
    """
    fstypes, module = (("nfs", "nfs4"), "nfs") if role == "client" else (("nfsd",), "nfsd")
    try:
        text = proc_filesystems.read_text(encoding="utf-8")
    except OSError:
        text = ""
    if _listed(fstypes, text):
        return NfsSupport(True, f"{'/'.join(fstypes)} listed in {proc_filesystems}")
    kernel = os.uname().release
    program = shutil.which(modprobe)
    if program is None:
        return NfsSupport(
            False,
            f"kernel {kernel} has no NFS {role}: {'/'.join(fstypes)} is not in "
            f"{proc_filesystems} and {modprobe} is not available to load '{module}'",
        )
    dry = command.run([program, "--dry-run", module], check=False)
    if dry.returncode != 0:
        return NfsSupport(
            False,
            f"kernel {kernel} has no NFS {role}: {'/'.join(fstypes)} is not in {proc_filesystems} "
            f"and `{modprobe} {module}` fails: {(dry.stderr or dry.stdout).strip()}",
        )
    return NfsSupport(True, f"module '{module}' can be loaded with {modprobe}")
