"""A pytest plugin: under CONTIO_TEST_STRICT=1 (set by `make test`, as for the Rust
tests) a session fails when a test skips for a reason tests/allowed_skips.py does not
list. Without it, a host missing cgroup v1, Docker or the engine would skip every test
that needs them and the run would stay green."""

from __future__ import annotations

import os

import pytest

from allowed_skips import unexpected

_reasons: list[str] = []


def _strict() -> bool:
    return os.environ.get("CONTIO_TEST_STRICT") == "1"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        _reasons.append(f"{report.nodeid}: {reason}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _strict() and unexpected(_reasons) and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if not _strict():
        return
    for reason in unexpected(_reasons):
        terminalreporter.write_line(
            f"SKIP NOT ALLOWED (CONTIO_TEST_STRICT=1, see tests/allowed_skips.py): {reason}",
            red=True,
        )
