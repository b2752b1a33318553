"""Block I/O controls as values: bandwidth and IOPS limits and a proportional weight.

`IoLimits` is what a spec asks for one container or process group on one device.
Rates accept integers (bytes/s, I/O/s) or strings with a unit ("10MB/s", "512KiB",
"2k"): decimal prefixes are powers of 1000, binary ones (KiB, MiB, GiB) of 1024.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, fields

from contio.errors import QosConfigError

WEIGHT_MIN, WEIGHT_MAX = 1, 1000
"""BFQ's weight range (blkio.bfq.weight, io.bfq.weight); io.weight allows up to 10000."""

_UNITS = {
    "": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4,
    "ki": 1024, "mi": 1024**2, "gi": 1024**3, "ti": 1024**4,
}  # fmt: skip
_RATE = re.compile(
    r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?)?\s*(b|bytes|iops|io)?\s*(?:/\s*s)?\s*$", re.IGNORECASE
)

RATE_MAX = 2**63
ALLOWED_RATE = 'a positive integer or a string like "10MB/s", "512KiB/s", "2k"'


def parse_rate(field: str, value: object) -> int:
    """A positive rate in units per second from an integer or a string with a unit."""
    if isinstance(value, bool):
        raise QosConfigError(field, f"must be {ALLOWED_RATE}, not {value!r}")
    try:
        if isinstance(value, (int, float)):
            number = float(value)
        elif isinstance(value, str) and (match := _RATE.match(value)):
            number = float(match[1]) * _UNITS[(match[2] or "").lower()]
        else:
            raise QosConfigError(field, f"must be {ALLOWED_RATE}, not {repr(value)[:60]}")
    except OverflowError:  # an integer of hundreds of digits
        number = math.inf
    if math.isnan(number) or number < 1:
        raise QosConfigError(field, f"must be at least 1 per second, not {value!r}")
    if not number < RATE_MAX:  # the kernel's cgroup files hold 64-bit rates
        raise QosConfigError(field, f"must be below 2^63 per second, not {repr(value)[:60]}")
    return int(number)


def counts_ios(value: object) -> bool:
    """Whether a rate string counts I/Os ("500iops", "2k io/s") rather than bytes."""
    match = _RATE.match(value) if isinstance(value, str) else None
    return match is not None and (match[3] or "").lower() in ("iops", "io")


@dataclass(frozen=True)
class IoLimits:
    """Limits and weight for one cgroup on one device; None leaves a control unset."""

    read_bps: int | None = None
    write_bps: int | None = None
    read_iops: int | None = None
    write_iops: int | None = None
    weight: int | None = None
    """Proportional weight 1–1000 (BFQ); the default weight of every cgroup is 100."""

    @classmethod
    def parse(cls, values: dict[str, object], prefix: str = "") -> IoLimits:
        """Validate a mapping such as a spec's `blkio:` block; errors name `prefix.key`."""
        known = [f.name for f in fields(cls)]
        parsed: dict[str, int] = {}
        for key, raw in values.items():
            name = f"{prefix}.{key}" if prefix else key
            if key not in known:
                raise QosConfigError(name, f"unknown control; allowed: {', '.join(known)}")
            if raw is None:
                continue
            parsed[key] = _weight(name, raw) if key == "weight" else parse_rate(name, raw)
        return cls(**parsed)

    def __post_init__(self) -> None:
        for name in ("read_bps", "write_bps", "read_iops", "write_iops"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise QosConfigError(name, f"must be an integer per second, not {value!r}")
            if value is not None and value < 1:
                raise QosConfigError(name, f"must be at least 1 per second, not {value}")
        if self.weight is not None:
            _weight("weight", self.weight)

    @property
    def throttles(self) -> dict[str, int]:
        """The limits that are set, by name."""
        names = ("read_bps", "write_bps", "read_iops", "write_iops")
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}

    @property
    def empty(self) -> bool:
        return not self.throttles and self.weight is None

    def as_dict(self) -> dict[str, int | None]:
        return asdict(self)


def _weight(field: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise QosConfigError(field, f"must be an integer {WEIGHT_MIN}–{WEIGHT_MAX}, not {value!r}")
    if not WEIGHT_MIN <= value <= WEIGHT_MAX:
        raise QosConfigError(field, f"must be {WEIGHT_MIN}–{WEIGHT_MAX} (BFQ's range), not {value}")
    return value
