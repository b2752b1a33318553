"""The profile file: `contio-profile/1`, a JSON document users keep, share and diff.

One `ScalingPoint` per container count (the application alone is the first, 1 copy),
each the mean over the repetitions at that count with its 95 % confidence half-width
for throughput, and what the data's disk and the host's CPUs did meanwhile. Rates of
the disk are the whole device's while the copies ran (one application per profile, so
they are its own), CPU is the application's own processes (client and server).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from contio.errors import ProfileError
from contio.output_files import replace_text
from contio.versioned_json import read_versioned

SCHEMA = "contio-profile/1"
"""The version of the file format this contio writes and reads."""


class ProfileModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class ScalingPoint(ProfileModel):
    """The application at one container count: means over the repetitions."""

    containers: int = Field(ge=1)
    repetitions: int = Field(ge=1)
    ops_per_sec: float
    """All copies together (steady phase)."""
    ops_per_sec_half_width: float | None
    """95 % confidence half-width over repetitions (None with one repetition)."""
    per_container_ops_per_sec: float
    normalized: float
    """Per-container ops/s against one copy alone: 1.0 scales perfectly, 0.5 halves."""
    read_bytes_per_sec: float | None
    write_bytes_per_sec: float | None
    read_iops: float | None
    write_iops: float | None
    bytes_per_io: float | None
    """Mean request size on the disk: reads and writes together."""
    merged_percent: float | None
    """Share of the requests the block layer merged into an adjacent one: a sign of
    sequential I/O (random requests do not merge); see docs/profiles.md."""
    disk_utilization_percent: float | None
    queue_depth: float | None
    cpu_cores: float | None
    """CPU the application's processes used, in cores (1.0 = one core busy)."""
    cpu_seconds_per_op: float | None
    host_cpu_percent: float | None
    request_sizes: dict[str, int] | None = None
    """Requests the disk completed per size (`4K` … `1M`, `>1M`), summed over the
    repetitions' run phases (the kernel's block_rq_complete tracepoint); None: not
    traced (no tracefs, or no single disk held the data)."""
    sequential_percent: float | None = None
    """Of those requests, the % adjacent to another of the last 32 in the same direction
    (`contio.samplers.block_requests`): sequential I/O."""
    data_bytes: float | None = None
    """What one copy's data occupied on the backend after its run phase (allocated
    bytes): what a place must hold for it. None: not measured (a Docker volume, or a
    profile written before contio measured it)."""


class Valley(ProfileModel):
    """A throughput valley in the scaling curve (`contio.stats.valley`)."""

    peak_containers: int
    bottom_containers: int
    depth: float
    """Bottom against peak, as a fraction (−0.3 = 30 % lower)."""
    recovery_containers: int | None


class Application(ProfileModel):
    """What was profiled: the cell's levels without the container count."""

    name: str
    levels: dict[str, Any]
    backend: dict[str, Any]
    """The backend's definition from the spec (type, path, …)."""
    disk: str | None
    """The kernel name of the disk that held the data (`busiest` when none did)."""
    spec: dict[str, Any] | None = None
    """The spec the profile ran (JSON, as the results' `spec.json`): how `contio advise
    --validate` and `contio profile --pairs` run the application again. None in a profile
    written before they existed: profile it again to use them."""


class Profile(ProfileModel):
    """An application's I/O profile (`contio profile`)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, populate_by_name=True
    )

    schema_: Literal["contio-profile/1"] = Field("contio-profile/1", alias="schema")
    application: Application
    host: dict[str, Any]
    """`cores` and `memory` of the machine it was measured on, and `contio`'s version."""
    measured: str
    """When the run started (ISO 8601, UTC)."""
    results: str
    """The results folder it was distilled from."""
    scaling: list[ScalingPoint] = Field(min_length=1)
    saturation_containers: float | None
    """Where throughput stopped growing (`contio.stats.saturation`); None: still growing
    at the largest count, or one count only."""
    valley: Valley | None
    caveats: list[str] = Field(default_factory=list)
    """Why a number may not be what it seems (data in the page cache, a saturated CPU)."""

    @property
    def solo(self) -> ScalingPoint:
        """The application alone (its fewest copies)."""
        return self.scaling[0]

    def dump(self, path: Path) -> None:
        text = json.dumps(self.model_dump(mode="json", by_alias=True), indent=2) + "\n"
        replace_text(path, text, make_parent=True)


def load_profile(path: Path) -> Profile:
    """A profile file, checked: `ProfileError` naming the file and the problem."""
    return read_versioned(
        path, Profile, SCHEMA, ProfileError, "profile the application again with this version"
    )
