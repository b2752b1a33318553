"""Whether the kernel offers device-mapper with the `striped` target (needed by LVM striping).

Checked in this order, cheapest first: /proc/misc lists `device-mapper`, or
/sys/class/misc/device-mapper exists; then `dmsetup targets` must list `striped`.
The reason is kept so results and skipped tests can say why LVM was not used.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from contio.host import command

PROC_MISC = Path("/proc/misc")
SYS_MISC_DM = Path("/sys/class/misc/device-mapper")


@dataclass(frozen=True)
class DeviceMapperSupport:
    """The answer, and the evidence for it."""

    available: bool
    reason: str


def _misc_lists_device_mapper(misc_text: str) -> bool:
    return any(line.split()[1:2] == ["device-mapper"] for line in misc_text.splitlines())


def probe(
    proc_misc: Path = PROC_MISC, sys_misc_dm: Path = SYS_MISC_DM, dmsetup: str = "dmsetup"
) -> DeviceMapperSupport:
    """Detect device-mapper and its `striped` target on this host (`dmsetup` names the
    program that lists the targets, for tests)."""
    try:
        misc_text = proc_misc.read_text(encoding="utf-8")
    except OSError:
        misc_text = ""
    if not (_misc_lists_device_mapper(misc_text) or sys_misc_dm.exists()):
        return DeviceMapperSupport(
            False,
            f"the kernel has no device-mapper ({proc_misc} does not list 'device-mapper' "
            f"and {sys_misc_dm} does not exist)",
        )
    program = shutil.which(dmsetup)
    if program is None:
        return DeviceMapperSupport(
            False, f"{dmsetup} not found (install the Debian package 'lvm2')"
        )
    targets = command.run([program, "targets"], check=False)
    if targets.returncode != 0:
        detail = (targets.stderr or targets.stdout).strip().splitlines()
        return DeviceMapperSupport(
            False, f"`{dmsetup} targets` failed: {detail[0] if detail else ''}"
        )
    if not any(line.split()[:1] == ["striped"] for line in targets.stdout.splitlines()):
        return DeviceMapperSupport(False, "device-mapper lacks the 'striped' target")
    return DeviceMapperSupport(True, "device-mapper with the 'striped' target is present")
