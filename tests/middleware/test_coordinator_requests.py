"""The coordinator as its own process (`python -m contio.middleware.services coordinator`)
against raw requests on real sockets: it judges a request by its headers before it reads
a body, so an unsigned or oversized body is answered and the connection closed before it
is sent, and its memory stays put; every malformed header gets a 4xx JSON answer naming
the header and no traceback reaches its log; a replayed request and a time that is not a
finite number are refused."""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from contio.middleware import auth

SECRET = "0123456789abcdef" * 4
MIB = 1 << 20


@dataclass
class Served:
    host: str
    port: int
    pid: int
    log: Path

    def rss(self) -> int:
        """The coordinator's resident memory, in bytes."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    log = tmp_path / "coordinator.log"
    argv = [sys.executable, "-m", "contio.middleware.services", "coordinator",
            "--listen", "127.0.0.1:0", "--state", str(tmp_path / "c.sqlite"),
            "--secret-file", str(secret)]  # fmt: skip
    with open(log, "wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 30
        while "serving http://" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        url = log.read_text().split("serving http://", 1)[1].split()[0]
        host, port = url.rsplit(":", 1)
        yield Served(host, int(port), proc.pid, log)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert "Traceback" not in log.read_text(), log.read_text()


def _connect(served: Served) -> socket.socket:
    return socket.create_connection((served.host, served.port), timeout=10)


def _answer(sock: socket.socket) -> tuple[int, dict, http.client.HTTPResponse]:
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, json.loads(response.read()), response


def _request(
    served: Served, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, dict, http.client.HTTPResponse]:
    with _connect(served) as sock:
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: x\r\n{head}\r\n".encode() + body)
        return _answer(sock)


def _signed(method: str, path: str, body: bytes) -> dict[str, str]:
    return {"Content-Length": str(len(body)), **auth.sign(SECRET, method, path, body)}


def _headers_for_length(method: str, path: str, length: int, time_text: str) -> dict[str, str]:
    """Correctly signed headers claiming a body of `length` bytes at `time_text`."""
    nonce, body_hash = "ab" * 16, hashlib.sha256(b"x").hexdigest()
    signed = auth.signature(SECRET, method, path, time_text, nonce, length, body_hash)
    return {
        "Content-Length": str(length),
        auth.TIME_HEADER: time_text,
        auth.NONCE_HEADER: nonce,
        auth.BODY_HASH_HEADER: body_hash,
        auth.SIGNATURE_HEADER: signed,
    }


def test_an_unsigned_body_is_refused_before_it_is_sent_and_memory_stays(served):
    before = served.rss()
    with _connect(served) as sock:
        sock.sendall(b"POST /v1/nodes/n/report HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: 1000\r\n\r\n")  # fmt: skip
        status, payload, response = _answer(sock)  # no byte of the body sent yet
        assert status == 401 and "unsigned" in payload["message"]
        assert response.getheader("Connection") == "close"
    # A length of -1 once made the server read until the stream ended (1.5 GB: +3 GB).
    sent = 0
    with _connect(served) as sock:
        sock.sendall(b"PUT /v1/policy HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n")
        status, payload, _ = _answer(sock)
        assert status == 400 and payload["error"] == "Content-Length"
        chunk = b"x" * MIB
        with pytest.raises(OSError):  # the server closed its end: the stream breaks
            while sent < 256 * MIB:
                sock.sendall(chunk)
                sent += len(chunk)
            sock.recv(1)
            raise ConnectionResetError("the server kept reading")  # pragma: no cover
    assert sent < 256 * MIB
    assert served.rss() - before < 32 * MIB


def test_a_signed_body_above_the_cap_is_refused_before_it_is_sent(served):
    headers = _headers_for_length("PUT", "/v1/policy", 1_500_000_000, f"{time.time():.3f}")
    with _connect(served) as sock:
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        sock.sendall(f"PUT /v1/policy HTTP/1.1\r\nHost: x\r\n{head}\r\n".encode())
        status, payload, _ = _answer(sock)
    assert status == 413 and payload["error"] == "Content-Length"


@pytest.mark.parametrize(
    ("header", "status"),
    [
        ("Content-Length: abc", 400),
        ("Content-Length: -1", 400),
        ("Content-Length: 1.5", 400),
        ("Content-Length: 99999999999999999999999", 400),
        ("Content-Length: 2\r\nContent-Length: 3", 400),
        ("Transfer-Encoding: chunked", 411),
    ],
)
def test_each_malformed_framing_header_is_answered_naming_it(served, header, status):
    with _connect(served) as sock:
        sock.sendall(f"PUT /v1/policy HTTP/1.1\r\nHost: x\r\n{header}\r\n\r\n".encode())
        got, payload, _ = _answer(sock)
    assert got == status
    assert payload["error"] == header.split(":")[0] and header.split(":")[0] in payload["message"]


@pytest.mark.parametrize("since", ["abc", "nan", "inf"])
def test_a_bad_query_value_is_a_400_naming_the_field(served, since):
    path = f"/v1/moves?since={since}"
    status, payload, _ = _request(served, "GET", path, _signed("GET", path, b""))
    assert status == 400 and payload["error"] == "since", payload
    assert "since: must be a number" in payload["message"]


def test_a_replayed_signed_request_is_refused(served):
    body = b'{"policy": "static"}'
    headers = _signed("PUT", "/v1/policy", body)
    first, _, _ = _request(served, "PUT", "/v1/policy", headers, body)
    again, payload, _ = _request(served, "PUT", "/v1/policy", headers, body)
    assert (first, again) == (200, 401)
    assert "replayed" in payload["message"]


@pytest.mark.parametrize("when", ["nan", "inf", "-inf", "1e999"])
def test_a_time_that_is_not_a_finite_number_is_refused(served, when):
    headers = _headers_for_length("GET", "/v1/status", 0, when)
    status, payload, _ = _request(served, "GET", "/v1/status", headers)
    assert status == 401 and auth.TIME_HEADER in payload["message"], payload


def test_a_body_other_than_the_signed_one_is_refused(served):
    headers = _signed("PUT", "/v1/policy", b'{"policy": "static"}')
    status, payload, _ = _request(served, "PUT", "/v1/policy", headers, b'{"policy": "xtatic"}')
    assert status == 401 and "does not match" in payload["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"capacity_bps": NaN}', "body"),
        (b'{"capacity_bps": 1e400}', "capacity_bps"),
        (b'{"capacity_bps": 1' + b"0" * 400 + b"}", "capacity_bps"),
        (b"[" * 100_000 + b"]" * 100_000, "body"),
        (b"\xff\xfe{", "body"),
        (b'{"capacity_bps": 1e8, "used_bps": {"a": 1e400}}', "used_bps.a"),
    ],
)
def test_signed_bodies_that_are_not_good_json_numbers_are_400s(served, body, field):
    path = "/v1/nodes/n/report"
    status, payload, _ = _request(served, "POST", path, _signed("POST", path, body), body)
    assert status == 400 and payload["error"] == field, payload
