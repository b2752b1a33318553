"""Dropping the kernel's page cache before a run phase, as the papers do.

`sync` first, so dirty pages are written and can be dropped, then `3` into
/proc/sys/vm/drop_caches (page cache, dentries and inodes). Needs root; the spec check
refuses `drop_caches: true` for other users before anything runs.
"""

from __future__ import annotations

import os
from pathlib import Path

from contio.errors import UsageError

DROP_CACHES = Path("/proc/sys/vm/drop_caches")


def drop_page_cache(control: Path = DROP_CACHES) -> None:
    """Write back dirty pages and drop clean caches; `UsageError` if the kernel refuses."""
    os.sync()
    try:
        control.write_text("3\n", encoding="ascii")
    except OSError as exc:
        raise UsageError(
            f"drop_caches: cannot write {control} ({exc.strerror}); run as root on the "
            "host (not in an unprivileged container) or set drop_caches: false"
        ) from None
