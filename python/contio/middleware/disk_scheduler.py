"""The brick disk's I/O scheduler while a node agent weighs tenants on it.

Throttles decide how much each tenant's bricks may send to the disk; they cannot decide
the order in which the disk serves what was sent. With a busy borrower's 1 MiB requests
already queued, a high-priority tenant's request waits behind them whatever its share
(docs/middleware.md, "Priority in the device"). BFQ serves queued requests by cgroup
weight, so the agent selects BFQ on its disk and gives each VNode the weight of its
tenant's priority.

BFQ's `low_latency` is turned off while the agent runs: its heuristics raise the weight of
queues that look interactive or soft real-time (new queues, readers that pause), which
overrides the cgroup weights (`contio.qos.controls` measured it); the tenants' order is the
coordinator's to decide, by priority.

The scheduler belongs to the disk, not to a VNode, so the agent changes it once, records
the change in its undo journal before making it, and restores it after its VNodes are
gone (on stop, or `contio cleanup` after a kill).
"""

from __future__ import annotations

from contio.errors import QosError
from contio.host.undo_journal import Entry
from contio.qos import device as devices
from contio.qos.controls import weight_mechanism
from contio.qos.device import BlockDevice
from contio.qos.hierarchy import Version


def unavailable(version: Version, device: BlockDevice) -> str | None:
    """Why tenants cannot be weighed on `device` with BFQ, or None when they can."""
    if version != "v1" and "bfq" not in devices.available_schedulers(device):
        return f"{device.name} offers no BFQ scheduler (`modprobe bfq` adds it)"
    return weight_mechanism(version, devices.available_schedulers(device))[1]


def original(device: BlockDevice) -> dict[str, object]:
    """The journal fields that restore `device`'s scheduler as it is now."""
    current = devices.scheduler(device)
    low = devices.bfq_low_latency(device) if current == "bfq" else None
    return {"device": device.number, "name": device.name, "scheduler": current,
            "low_latency": low}  # fmt: skip


def select_bfq(device: BlockDevice) -> None:
    """BFQ on `device`, with its low-latency heuristics off."""
    if devices.scheduler(device) != "bfq":
        devices.set_scheduler(device, "bfq")
    if devices.bfq_low_latency(device):
        devices.set_bfq_low_latency(device, False)


def undo_scheduler(entry: Entry) -> None:
    """Undo-journal action: give the disk back the scheduler (and, when it was BFQ
    already, the low_latency setting) it had before the agent selected BFQ."""
    major, minor = (int(n) for n in str(entry["device"]).split(":"))
    device = BlockDevice(major, minor, str(entry["name"]))
    if not device.scheduler_file.exists():
        return  # the disk is gone (a removed loop device), and its scheduler with it
    try:
        if entry["scheduler"] != "bfq":
            devices.set_scheduler(device, str(entry["scheduler"]))
        elif entry.get("low_latency") is not None:
            devices.set_bfq_low_latency(device, bool(entry["low_latency"]))
    except QosError:
        if device.scheduler_file.exists():
            raise
