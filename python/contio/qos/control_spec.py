"""The `io_controls` factor's levels as a spec gives them: per container (or local
process group) cgroup limits and weights, or middleware tenants with a priority,
reservation and limit (docs/middleware.md). `contio.qos.io_groups` applies them."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, PlainValidator, model_validator
from pydantic_core import PydanticCustomError

from contio.spec_model import SpecModel
from contio.yaml_input import Integer, PositiveInteger

_PERCENT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*$")


def _bandwidth(value: Any) -> int | str:
    """bytes/s (a positive integer), or a percent of the device's bandwidth (`25%`), kept
    as `25%`."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, float) and value.is_integer() and value > 0:
        return int(value)  # 1e6 from YAML
    found = _PERCENT.match(value) if isinstance(value, str) else None
    if found is None:
        raise PydanticCustomError(
            "bad_bandwidth",
            "{value} is neither bytes/s (a positive integer) nor a percent of the device's "
            "bandwidth ('25%')",
            {"value": repr(value)},
        )
    percent = float(found.group(1))
    if not 0 < percent <= 100:
        raise PydanticCustomError(
            "bad_percent", "a percent of the device's bandwidth is in (0, 100], not {value}",
            {"value": value},
        )  # fmt: skip
    return f"{percent:g}%"


Bandwidth = Annotated[int | str, PlainValidator(_bandwidth)]
"""bytes/s, or `N%`: N % of the bandwidth measured on the device when the run starts.
One validator for both forms, so an error names the field once with both allowed."""


def percent_of(value: int | str | None) -> float | None:
    """The percent of a `Bandwidth` given as one (`25%` → 25.0), else None."""
    if isinstance(value, str):
        return float(value.rstrip("%"))
    return None


class IoGroupControls(SpecModel):
    """Block I/O limits of one container (or local process group). Sizes in bytes/s;
    `read_bps` and `write_bps` also as a percent of the device's bandwidth (`25%`),
    resolved against a short direct-I/O calibration on the device when the run starts
    (`contio.qos.calibration`).

    Under a level's `middleware`, the container is a tenant of the Gluster cluster
    instead, with a `priority` and optionally a `reservation` and `limit` per storage
    node (docs/middleware.md)."""

    read_bps: Bandwidth | None = None
    write_bps: Bandwidth | None = None
    read_iops: PositiveInteger | None = None
    write_iops: PositiveInteger | None = None
    weight: Integer | None = Field(None, ge=1, le=1000)
    priority: Integer | None = Field(None, ge=1, le=100)
    reservation: Bandwidth | None = None
    limit: Bandwidth | None = None
    tenant: str | None = Field(None, pattern=r"^[a-z][a-z0-9]{0,15}$")
    """The middleware tenant (default `t<k>` for the k-th group): groups of one tenant
    share its volume and its share (paper 004's two background readers)."""

    @property
    def empty(self) -> bool:
        return all(v is None for v in self.model_dump().values())

    @property
    def local_fields(self) -> list[str]:
        """The cgroup controls it sets (applied on this host, not by the middleware)."""
        return [k for k in LOCAL_CONTROLS if getattr(self, k) is not None]

    @property
    def tenant_fields(self) -> list[str]:
        """The middleware settings it sets."""
        return [k for k in TENANT_SETTINGS if getattr(self, k) is not None]

    @property
    def relative(self) -> bool:
        """Whether a bandwidth is a percent of the device's (needs a calibration)."""
        return percent_of(self.read_bps) is not None or percent_of(self.write_bps) is not None

    def resolved(self, read_bps: float, write_bps: float) -> IoGroupControls:
        """These controls with each percent turned into bytes/s of the measured bandwidth
        (`read_bps`, `write_bps`: the device's, bytes/s); at least 1 byte/s."""
        update: dict[str, int] = {}
        for name, measured in (("read_bps", read_bps), ("write_bps", write_bps)):
            percent = percent_of(getattr(self, name))
            if percent is not None:
                update[name] = max(1, round(measured * percent / 100))
        return self.model_copy(update=update)


LOCAL_CONTROLS = ("read_bps", "write_bps", "read_iops", "write_iops", "weight")
TENANT_SETTINGS = ("priority", "reservation", "limit", "tenant")


class MiddlewareControls(SpecModel):
    """Paper 004's middleware on the cluster of a Gluster backend whose containers each
    have their own volume (`volume_per_container: true`): each group is a tenant."""

    policy: Literal["static", "work-conserving"] = "work-conserving"
    capacity: PositiveInteger | None = None
    """Each storage node's bytes/s; default: measured on each node's brick disk at `up`."""


class IoControlSet(SpecModel):
    """A level of the `io_controls` factor: one group (a cgroup, the VNode of paper 004,
    docs/papers.md) per container, in container order; a group without limits still
    isolates its container in a cgroup of its own. Containers past the list's end are not
    grouped. With `middleware`, the groups are tenants of the Gluster cluster, their
    shares enforced on every storage node by `contio qos` (docs/middleware.md)."""

    groups: list[IoGroupControls] = Field(default_factory=list)
    device: str | None = None
    """The block device to control (`/dev/loop3`, `8:16`); default: the backend's."""
    middleware: MiddlewareControls | None = None

    @model_validator(mode="after")
    def _groups_fit_the_mechanism(self) -> IoControlSet:
        for k, group in enumerate(self.groups):
            if self.middleware is not None:
                if group.local_fields:
                    raise ValueError(
                        f"groups[{k}]: {', '.join(group.local_fields)} are cgroup controls on "
                        "this host; a middleware tenant takes priority, reservation and limit"
                    )
                if group.priority is None:
                    raise ValueError(f"groups[{k}]: a middleware tenant needs a priority (1-100)")
                _percent_free(k, group)
            elif group.tenant_fields:
                raise ValueError(
                    f"groups[{k}]: {', '.join(group.tenant_fields)} are settings of a middleware "
                    "tenant; add `middleware: {policy: static}` (or work-conserving) to the level"
                )
        if self.middleware is not None and self.device is not None:
            raise ValueError("device: the middleware controls each storage node's brick disk")
        if self.middleware is not None:
            self._tenants_agree()
        return self

    def _tenants_agree(self) -> None:
        first: dict[str, tuple[int, IoGroupControls]] = {}
        for k, group in enumerate(self.groups):
            name = self.tenant_of(k)
            if name not in first:
                first[name] = (k, group)
                continue
            j, other = first[name]
            for setting in ("priority", "reservation", "limit"):
                if getattr(group, setting) != getattr(other, setting):
                    raise ValueError(
                        f"groups[{k}].{setting}: tenant {name!r} has {setting} "
                        f"{getattr(other, setting)!r} in groups[{j}]; a tenant has one"
                    )

    def tenant_of(self, k: int) -> str:
        """The middleware tenant of the `k`-th group (0-based)."""
        return self.groups[k].tenant or f"t{k + 1}"

    def tenants(self) -> dict[str, IoGroupControls]:
        """Each middleware tenant of the level and its settings (from its first group)."""
        found: dict[str, IoGroupControls] = {}
        for k, group in enumerate(self.groups):
            found.setdefault(self.tenant_of(k), group)
        return found

    @property
    def empty(self) -> bool:
        """No groups at all: nothing to apply."""
        return not self.groups


def _percent_free(k: int, group: IoGroupControls) -> None:
    for name in ("reservation", "limit"):
        if percent_of(getattr(group, name)) is not None:
            raise ValueError(
                f"groups[{k}].{name}: give bytes/s (a percent of a storage node is not "
                "supported yet)"
            )
