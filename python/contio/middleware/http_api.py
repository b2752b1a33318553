"""The coordinator's HTTP/JSON API, and the client the CLI and the node agents use.

| method and path | body | answer |
|---|---|---|
| GET /v1/status | | `Coordinator.status()` |
| PUT /v1/tenants/NAME | {"priority", "reservation"?, "limit"?} (rates: "20MB/s", "500iops") | the tenant |
| DELETE /v1/tenants/NAME | | {} |
| PUT /v1/policy | {"policy"} | {"policy"} |
| POST /v1/nodes/NAME/report | {"capacity_bps", "used_bps": {tenant: bytes/s}, "used_iops"?: {tenant: I/O/s}, "disk"?: {"utilization", "moved_bps"}} | {"shares_bps", "limits_iops", "weights", "policy", "interval_s"} |
| GET /v1/moves?since=T | | [{"at", "node", "tenant", "old_bps", "new_bps"}] |

Every request is signed (`contio.middleware.auth`); 401 otherwise. The server reads a
body only after its headers passed: a Content-Length that is not a number of bytes is a
400 naming the header, a body sent without one (chunked) a 411, one above `MAX_BODY` a
413, and an unsigned request a 401, each answered at once and the connection closed,
the body unread. Then exactly Content-Length bytes are read and checked against their
signed hash. Bad input is a 400 whose body names the field (a query parameter too), and
the client raises it again as `QosConfigError`, so the CLI exits 2 with the same message.
No request makes the server print a traceback. The server is the standard library's
threading HTTP server: a handful of agents reporting twice a second need nothing more.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
import threading
import urllib.error
import urllib.request
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from contio.errors import AuthError, CoordinatorUnreachable, MiddlewareError, QosConfigError
from contio.middleware import auth
from contio.middleware.coordinator import Coordinator, DiskReport, check_tenant_name

MAX_BODY = 1 << 20
READ_TIMEOUT = 10.0
"""Seconds a connection may leave the server waiting for the rest of a request."""
_DIGITS = re.compile(r"[0-9]{1,19}")


class _BadRequest(Exception):
    def __init__(self, status: HTTPStatus, field: str, message: str):
        self.status, self.payload = status, {"error": field, "message": f"{field}: {message}"}


class CoordinatorServer(ThreadingHTTPServer):
    """Serves one `Coordinator` on (host, port); port 0 picks a free one."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], coordinator: Coordinator, secret: str):
        super().__init__(address, _Handler)
        self.coordinator = coordinator
        self.secret = secret
        self.replays = auth.ReplayGuard()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://{host}:{port}"

    def serve_in_thread(self) -> threading.Thread:
        thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.1}, name="contio-coordinator",
            daemon=True,
        )  # fmt: skip
        thread.start()
        return thread

    def handle_error(self, request: object, client_address: Any) -> None:
        # A client that went away mid-answer: one line, not the standard traceback.
        error = sys.exc_info()[1]
        sys.stderr.write(f"coordinator: request from {client_address[0]} ended: {error!r}\n")


class _Handler(BaseHTTPRequestHandler):
    server: CoordinatorServer
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT  # a client that stops sending mid-request holds no thread for long

    def log_message(self, format: str, *args: Any) -> None:
        pass  # one report per node per second would drown the coordinator's log

    def do_GET(self) -> None:
        self._serve("GET")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def _serve(self, method: str) -> None:
        try:
            length = _content_length(self.headers)
            signed_hash = auth.verify_headers(
                self.server.secret, method, self.path, length, self.headers, self.server.replays
            )
            if length > MAX_BODY:
                raise _BadRequest(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "Content-Length",
                                  f"at most {MAX_BODY} bytes, not {length}")  # fmt: skip
            body = self._body(length)
            auth.verify_body(body, signed_hash)
            status, payload = HTTPStatus.OK, self._route(method, body)
        except AuthError as exc:
            status, payload = HTTPStatus.UNAUTHORIZED, {"error": "auth", "message": str(exc)}
        except QosConfigError as exc:
            status, payload = HTTPStatus.BAD_REQUEST, {"error": exc.field, "message": str(exc)}
        except _BadRequest as exc:
            status, payload = exc.status, exc.payload
        except Exception as exc:  # noqa: BLE001 - answered, never a traceback on any input
            sys.stderr.write(f"coordinator: {method} {self.path[:200]} failed: {exc!r}\n")
            status = HTTPStatus.INTERNAL_SERVER_ERROR
            payload = {"error": "internal", "message": f"{type(exc).__name__}: {exc}"}
        self._answer(status, payload)

    def _answer(self, status: HTTPStatus, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status != HTTPStatus.OK:
            # The body may be unread: what follows on this connection is not a request.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def _body(self, length: int) -> bytes:
        """Exactly `length` bytes of body (the headers, checked, said so)."""
        try:
            body = self.rfile.read(length) if length else b""
        except TimeoutError:
            raise _BadRequest(HTTPStatus.REQUEST_TIMEOUT, "Content-Length",
                              f"the body did not arrive in {READ_TIMEOUT:g} s") from None  # fmt: skip
        if len(body) != length:
            raise _BadRequest(HTTPStatus.BAD_REQUEST, "Content-Length",
                              f"the body ended after {len(body)} of {length} bytes")  # fmt: skip
        return body

    def _route(self, method: str, body: bytes) -> Any:
        coordinator = self.server.coordinator
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p][1:] if url.path.startswith("/v1/") else []
        data = _json(body)
        match method, parts:
            case "GET", ["status"]:
                return coordinator.status()
            case "GET", ["moves"]:
                return coordinator.store.share_moves(_query_number(url.query, "since", 0.0))
            case "PUT", ["tenants", name]:
                tenant = coordinator.set_tenant(
                    name, data.get("priority"), data.get("reservation"), data.get("limit")
                )  # the priority's type is checked by TenantShare, naming the field
                return {"name": tenant.name, "priority": tenant.priority,
                        "reservation_bps": tenant.reservation, "limit_bps": tenant.limit,
                        "reservation_iops": tenant.reservation_iops,
                        "limit_iops": tenant.limit_iops}  # fmt: skip
            case "DELETE", ["tenants", name]:
                coordinator.remove_tenant(name)
                return {}
            case "PUT", ["policy"]:
                coordinator.set_policy(data.get("policy"))
                return {"policy": coordinator.policy}
            case "POST", ["nodes", node, "report"]:
                used = _rates(data, "used_bps", "bytes/s")
                ios = _rates(data, "used_iops", "I/O/s")
                answer = coordinator.report(
                    node, _number(data, "capacity_bps"), used, _disk(data.get("disk")), ios
                )
                return {"shares_bps": answer.shares_bps, "limits_iops": answer.limits_iops,
                        "weights": answer.weights, "policy": coordinator.policy,
                        "interval_s": coordinator.interval}  # fmt: skip
        raise _BadRequest(HTTPStatus.NOT_FOUND, "path", f"no {method} {url.path[:200]}")


def _content_length(headers: Message) -> int:
    """The body's length from its headers: 0 without one; a number of bytes or refused."""
    if headers.get("Transfer-Encoding") is not None:
        raise _BadRequest(HTTPStatus.LENGTH_REQUIRED, "Transfer-Encoding",
                          "not accepted: send the body with a Content-Length")  # fmt: skip
    given = set(headers.get_all("Content-Length") or [])
    if not given:
        return 0
    value = given.pop().strip()
    if given or not _DIGITS.fullmatch(value):
        shown = value if len(value) <= 40 else value[:40] + "…"
        raise _BadRequest(HTTPStatus.BAD_REQUEST, "Content-Length",
                          f"must be one number of bytes (0 or more), not {shown!r}")  # fmt: skip
    return int(value)


def _query_number(query: str, field: str, default: float) -> float:
    values = parse_qs(query).get(field)
    if not values:
        return default
    try:
        number = float(values[0])
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise QosConfigError(field, f"must be a number (Unix seconds), not {values[0][:40]!r}")
    return number


def _json(body: bytes) -> dict[str, Any]:
    if not body:
        return {}
    try:
        data = json.loads(body, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # bad JSON, bad UTF-8, nesting too deep
        raise QosConfigError("body", f"is not JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise QosConfigError("body", "must be a JSON object")
    return data


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a number JSON allows")


def _rates(data: dict[str, Any], field: str, unit: str) -> dict[str, float]:
    rates = data.get(field) or {}
    if not isinstance(rates, dict):
        raise QosConfigError(field, f"must be an object of tenant: {unit}")
    return {str(tenant): _finite(f"{field}.{tenant}", rate) for tenant, rate in rates.items()}


def _disk(data: object) -> DiskReport | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise QosConfigError("disk", "must be an object with utilization and moved_bps")
    utilization = _number(data, "utilization")
    if not 0 <= utilization <= 1:
        raise QosConfigError("disk.utilization", f"must be 0–1, not {utilization!r}")
    moved = None if data.get("moved_bps") is None else _number(data, "moved_bps")
    return DiskReport(utilization, moved)


def _number(data: dict[str, Any], field: str) -> float:
    return _finite(field, data.get(field))


def _finite(field: str, value: object) -> float:
    """`value` as a finite float (JSON's 1e400 is inf, 10**400 too large for one)."""
    number = math.nan
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):
            number = float(value)
    if not math.isfinite(number):
        raise QosConfigError(field, f"must be a finite number, not {repr(value)[:40]}")
    return number


class CoordinatorClient:
    """Signed requests to a coordinator at `url` (http://host:port)."""

    def __init__(self, url: str, secret: str, timeout: float = 5.0):
        self.url = url.rstrip("/")
        self._secret = secret
        self._timeout = timeout

    def status(self) -> dict[str, Any]:
        return self._call("GET", "/v1/status")

    def set_tenant(
        self, name: str, priority: int, reservation: object = None, limit: object = None
    ) -> dict[str, Any]:
        body = {"priority": priority, "reservation": reservation, "limit": limit}
        return self._call("PUT", f"/v1/tenants/{check_tenant_name(name)}", body)

    def remove_tenant(self, name: str) -> None:
        self._call("DELETE", f"/v1/tenants/{check_tenant_name(name)}")

    def set_policy(self, policy: str) -> None:
        self._call("PUT", "/v1/policy", {"policy": policy})

    def report(
        self,
        node: str,
        capacity_bps: float,
        used_bps: dict[str, float],
        disk: DiskReport | None = None,
        used_iops: dict[str, float] | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"capacity_bps": capacity_bps, "used_bps": used_bps}
        if used_iops is not None:
            body["used_iops"] = used_iops
        if disk is not None:
            body["disk"] = {"utilization": disk.utilization, "moved_bps": disk.moved_bps}
        return self._call("POST", f"/v1/nodes/{node}/report", body)

    def moves(self, since: float = 0.0) -> list[dict[str, Any]]:
        return self._call("GET", f"/v1/moves?since={since}")

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = b"" if body is None else json.dumps(body).encode()
        headers = {
            "Content-Type": "application/json",
            **auth.sign(self._secret, method, path, data),
        }
        request = urllib.request.Request(self.url + path, data or None, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            payload = _error_payload(exc)
            if exc.code == HTTPStatus.BAD_REQUEST:
                field = str(payload.get("error", "request"))
                message = str(payload.get("message", ""))
                raise QosConfigError(field, message.removeprefix(f"{field}: ")) from None
            if exc.code == HTTPStatus.UNAUTHORIZED:
                raise AuthError(
                    f"the coordinator at {self.url} refused: {payload.get('message')}"
                ) from None
            raise MiddlewareError(f"{method} {path}: HTTP {exc.code} {payload}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise CoordinatorUnreachable(f"no coordinator at {self.url}: {reason}") from None


def _error_payload(exc: urllib.error.HTTPError) -> dict[str, Any]:
    try:
        payload = json.loads(exc.read())
    except (json.JSONDecodeError, OSError):
        return {}
    return payload if isinstance(payload, dict) else {}
