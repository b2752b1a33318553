"""The per-cluster secret, and the signature that lets coordinator and agents trust a request.

Every request carries four headers: `X-Contio-Time` (Unix seconds), `X-Contio-Nonce`
(32 random hex digits, new for each request), `X-Contio-Body-SHA256` (of the body) and
`X-Contio-Signature`, the HMAC-SHA256 under the cluster's secret of method, path, time,
nonce, the body's length and its hash. The receiver checks all of it from the headers
alone, before it reads a byte of the body (`verify_headers`): an unsigned or wrongly
signed request, one whose time is not a finite number within `MAX_SKEW` of its clock,
and one whose nonce it has accepted before (a replay) are refused without their body
being read. It then reads exactly the signed length and checks the hash (`verify_body`).
Only holders of the secret, which `contio qos up` writes with mode 0600, can change shares.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import re
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from contio.errors import AuthError

MAX_SKEW = 30.0
"""Seconds a request's time may differ from the receiver's clock."""
TIME_HEADER, NONCE_HEADER = "X-Contio-Time", "X-Contio-Nonce"
BODY_HASH_HEADER, SIGNATURE_HEADER = "X-Contio-Body-SHA256", "X-Contio-Signature"
_NONCE = re.compile(r"[0-9a-f]{32}")
_HEX_256 = re.compile(r"[0-9a-f]{64}")


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


def signature(
    secret: str, method: str, path: str, timestamp: str, nonce: str, length: int, body_hash: str
) -> str:
    fields = [method.upper(), path, timestamp, nonce, str(length), body_hash]
    return hmac.new(secret.encode(), "\n".join(fields).encode(), hashlib.sha256).hexdigest()


def sign(secret: str, method: str, path: str, body: bytes) -> dict[str, str]:
    """The headers that authenticate a request with this body."""
    timestamp, nonce = f"{time.time():.3f}", secrets.token_hex(16)
    body_hash = hashlib.sha256(body).hexdigest()
    return {
        TIME_HEADER: timestamp,
        NONCE_HEADER: nonce,
        BODY_HASH_HEADER: body_hash,
        SIGNATURE_HEADER: signature(secret, method, path, timestamp, nonce, len(body), body_hash),
    }


class Headers(Protocol):
    """A request's headers (a dict, or the HTTP server's message)."""

    def get(self, name: str, /) -> str | None: ...


class ReplayGuard:
    """The nonces of requests accepted while their time could still pass the skew check:
    a second request with one of them is a replay. Only signed requests are remembered,
    so a stranger cannot fill it; each is forgotten once its time is out of the window."""

    def __init__(self, clock: Callable[[], float] | None = None):
        self._clock = clock or (lambda: time.time())
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def admit(self, nonce: str) -> bool:
        """Remember `nonce`; False when it was seen within the window."""
        now = self._clock()
        with self._lock:
            for old in [n for n, until in self._seen.items() if until < now]:
                del self._seen[old]
            if nonce in self._seen:
                return False
            # A request is accepted while |now - its time| ≤ MAX_SKEW, its time within
            # MAX_SKEW of this clock when first seen: 2 × MAX_SKEW covers every retry.
            self._seen[nonce] = now + 2 * MAX_SKEW
            return True


def verify_headers(
    secret: str,
    method: str,
    path: str,
    length: int,
    headers: Headers,
    guard: ReplayGuard,
    clock: Callable[[], float] | None = None,
) -> str:
    """Check that `headers` sign this request, of a body of `length` bytes, recently and
    for the first time; return the body's signed SHA-256 (for `verify_body`). Raises
    `AuthError` naming the header at fault. Reads no body."""
    timestamp, nonce = headers.get(TIME_HEADER), headers.get(NONCE_HEADER)
    body_hash, given = headers.get(BODY_HASH_HEADER), headers.get(SIGNATURE_HEADER)
    if not timestamp or not given:
        raise AuthError("unsigned request: it needs the cluster's secret")
    if not nonce or not body_hash:
        raise AuthError(f"signed without {NONCE_HEADER} and {BODY_HASH_HEADER}, as contio "
                        "before 2026-12 did: run one contio version on every node")  # fmt: skip
    try:
        sent = float(timestamp)
    except ValueError:
        sent = math.nan
    if not math.isfinite(sent):
        raise AuthError(f"{TIME_HEADER}: must be finite Unix seconds, not {_short(timestamp)}")
    skew = abs((clock or time.time)() - sent)
    if skew > MAX_SKEW:
        raise AuthError(f"request time is {skew:.0f} s off this clock (at most {MAX_SKEW:.0f})")
    if not _NONCE.fullmatch(nonce):
        raise AuthError(f"{NONCE_HEADER}: must be 32 hex digits, not {_short(nonce)}")
    if not _HEX_256.fullmatch(body_hash):
        raise AuthError(f"{BODY_HASH_HEADER}: must be 64 hex digits, not {_short(body_hash)}")
    expected = signature(secret, method, path, timestamp, nonce, length, body_hash)
    if not hmac.compare_digest(expected, given):
        raise AuthError("bad signature: not signed with this cluster's secret")
    if not guard.admit(nonce):
        raise AuthError(f"replayed request: {NONCE_HEADER} {nonce} was used already")
    return body_hash


def verify_body(body: bytes, body_hash: str) -> None:
    """Raise `AuthError` unless `body` is the one whose hash the request signed."""
    if not hmac.compare_digest(hashlib.sha256(body).hexdigest(), body_hash):
        raise AuthError(f"the body does not match its signed {BODY_HASH_HEADER}")


def _short(value: str) -> str:
    """A header's value for a message: quoted, and cut (a header line may be 64 KiB)."""
    return repr(value if len(value) <= 40 else value[:40] + "…")
