"""The skips `make test` accepts: what this kind of machine cannot do, each with why.

With CONTIO_TEST_STRICT=1 (set by `make test`, as for the Rust tests) a session fails
when a test skips for any other reason: on a host without cgroup v1, Docker or the
engine, every test that needs them would otherwise skip and the run stay green.
"""

from __future__ import annotations

import re

ALLOWED = {
    # The CI machine's kernel has no NFS client and cannot load one (docs/design.md):
    # the NFS backend is unit-tested, its mount skipped.
    "no NFS client in the kernel": re.compile(r"has no NFS client"),
    # No device-mapper in the kernel: LVM striping cannot be set up (btrfs RAID0 can).
    "no device-mapper in the kernel": re.compile(r"kernel has no device-mapper"),
}


def unexpected(reasons: list[str]) -> list[str]:
    """The skip reasons that no allowed pattern matches."""
    return [r for r in reasons if not any(p.search(r) for p in ALLOWED.values())]
