"""The per-cluster secret, and the signature that lets coordinator and agents trust a request.

Every request carries `X-Contio-Time` (Unix seconds) and `X-Contio-Signature`, the
HMAC-SHA256 of method, path, time and body under the cluster's secret. The coordinator
refuses an unsigned or wrongly signed request, and one whose time is further than
`MAX_SKEW` from its clock (so a captured request cannot be replayed later). Only holders
of the secret, which `contio qos up` writes with mode 0600, can change shares.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from pathlib import Path

from contio.errors import AuthError

MAX_SKEW = 30.0
"""Seconds a request's time may differ from the receiver's clock."""
TIME_HEADER, SIGNATURE_HEADER = "X-Contio-Time", "X-Contio-Signature"


def new_secret(path: Path) -> str:
    """Create a random secret readable by its owner only, and return it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secret + "\n")
    return secret


def read_secret(path: Path) -> str:
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        raise AuthError(
            f"no cluster secret at {path}: start the middleware with `contio qos up`"
        ) from None


def signature(secret: str, method: str, path: str, timestamp: str, body: bytes) -> str:
    message = b"\n".join([method.upper().encode(), path.encode(), timestamp.encode(), body])
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def sign(secret: str, method: str, path: str, body: bytes) -> dict[str, str]:
    """The headers that authenticate a request."""
    timestamp = f"{time.time():.3f}"
    return {
        TIME_HEADER: timestamp,
        SIGNATURE_HEADER: signature(secret, method, path, timestamp, body),
    }


def verify(secret: str, method: str, path: str, body: bytes, headers: dict[str, str]) -> None:
    """Raise AuthError unless `headers` sign this request under `secret`, recently."""
    timestamp, given = headers.get(TIME_HEADER), headers.get(SIGNATURE_HEADER)
    if not timestamp or not given:
        raise AuthError("unsigned request: it needs the cluster's secret")
    try:
        skew = abs(time.time() - float(timestamp))
    except ValueError:
        raise AuthError(f"bad {TIME_HEADER}: {timestamp!r}") from None
    if skew > MAX_SKEW:
        raise AuthError(f"request time is {skew:.0f} s off this clock (at most {MAX_SKEW:.0f})")
    if not hmac.compare_digest(signature(secret, method, path, timestamp, body), given):
        raise AuthError("bad signature: not signed with this cluster's secret")
