"""Running the host's storage tools (losetup, mkfs, mount, gluster, ip, …) as argv lists.

Every external program a backend runs goes through `run`, so a failure always carries
the command, its exit code and its stderr, and no command is ever a shell string.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

from contio.errors import BackendUnavailableError, CommandError

# Seconds a storage command may take before it is considered hung (mkfs on a large
# device, a gluster volume operation waiting on a dead peer).
DEFAULT_TIMEOUT = 300.0


def run(
    argv: Sequence[str],
    *,
    check: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `argv`, capture its output as text; raise `CommandError` when it fails and `check`."""
    args = [str(a) for a in argv]
    try:
        proc = subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input_text,
            stdin=None if input_text is not None else subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError as exc:
        raise BackendUnavailableError(f"program not found: {args[0]}") from exc
    except subprocess.TimeoutExpired as exc:
        raise CommandError(args, -1, f"timed out after {timeout:g} s") from exc
    if check and proc.returncode != 0:
        raise CommandError(args, proc.returncode, proc.stderr or proc.stdout)
    return proc


def require_program(program: str, package: str) -> str:
    """The full path of `program`, or a `BackendUnavailableError` naming the Debian package."""
    path = shutil.which(program)
    if path is None:
        raise BackendUnavailableError(
            f"program '{program}' not found; install the Debian package '{package}' "
            "(scripts/setup-system.sh installs it)"
        )
    return path
