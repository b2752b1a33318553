"""Open a page in headless Chromium (Debian's `chromium`): its DOM, console and a screenshot.

No network: background networking, component updates and sync are off, the profile
is fresh, and the report's Content-Security-Policy forbids every fetch. Console
messages are read from Chromium's log (`--enable-logging=stderr`), where each one is
a `CONSOLE` line; the report has no script, so any such line is an error (a blocked
fetch or script, a parse problem).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
)
CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]? ?(.*)")


@dataclass(frozen=True)
class PageView:
    dom: str
    """The DOM after loading, serialized (`--dump-dom`)."""
    console: list[str]
    """Every console message of both loads."""


def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        raise AssertionError("chromium is not installed (scripts/apt-packages.txt lists it)")
    return found


def _run(page: Path, profile: Path, extra: list[str]) -> tuple[str, list[str]]:
    argv = [chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, page.resolve().as_uri()]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    messages = [m.group(1) for m in map(CONSOLE.search, done.stderr.splitlines()) if m]
    return done.stdout, messages


def open_page(page: Path, screenshot: Path, workdir: Path) -> PageView:
    """Load `page` twice (DOM, then a 1200-px-wide screenshot), each with a fresh profile."""
    dom, first = _run(page, workdir / "profile-dom", ["--dump-dom"])
    _, second = _run(
        page,
        workdir / "profile-shot",
        [f"--screenshot={screenshot}", "--window-size=1200,4000", "--hide-scrollbars"],
    )
    return PageView(dom, first + second)
