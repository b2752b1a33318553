"""The samples of a middleware run phase: every node report's per-tenant share and
measured rate, polled from the coordinator's status (`run-middleware.jsonl` in the
repetition's raw directory), and the moments shares moved (`run-middleware-moves.json`)
for the report's timeline and achieved-versus-target figures."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from contio.errors import MiddlewareError
from contio.middleware import deployment
from contio.results.folder import MIDDLEWARE_MOVES_JSON, MIDDLEWARE_SAMPLES_JSONL


def report_time(node: dict[str, Any]) -> float:
    return time.time() - float(node["last_report_age_s"])


class StatusSampler:
    """Polls the coordinator's status and writes each new node report's per-tenant share
    and measured rate: {"t", "node", "tenant", "target_bps", "measured_bps"}."""

    def __init__(self, dep: deployment.Deployment, tenants: dict[str, str], directory: Path):
        self._client = dep.client
        self._tenants = {name: spec for spec, name in tenants.items()}
        self._path = directory / MIDDLEWARE_SAMPLES_JSONL
        self._moves = directory / MIDDLEWARE_MOVES_JSON
        self._interval = 0.25
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="middleware-sampler", daemon=True)
        self._seen: dict[str, float] = {}
        self.started = time.time()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        with contextlib.suppress(MiddlewareError):
            moves = [m for m in self._client.moves(self.started) if m["tenant"] in self._tenants]
            # Seconds since sampling began, as the samples' `t`.
            placed = [
                {
                    **m,
                    "t": round(float(m["at"]) - self.started, 3),
                    "tenant": self._tenants[m["tenant"]],
                }
                for m in moves
            ]
            self._moves.write_text(json.dumps(placed, indent=1))

    def _loop(self) -> None:
        with self._path.open("a") as out:
            while not self._stop.wait(self._interval):
                with contextlib.suppress(MiddlewareError):
                    for line in self._new_reports():
                        out.write(json.dumps(line) + "\n")
                    out.flush()

    def _new_reports(self) -> Iterator[dict[str, Any]]:
        for node, info in self._client.status()["nodes"].items():
            at = round(report_time(info), 3)
            if at - self._seen.get(node, 0.0) < 0.05:
                continue  # the same report as last time
            self._seen[node] = at
            for name, share in info["tenants"].items():
                if name in self._tenants:
                    yield {
                        "t": round(at - self.started, 3),
                        "node": node,
                        "tenant": self._tenants[name],
                        "target_bps": share["target_bps"],
                        "measured_bps": share["measured_bps"],
                    }
