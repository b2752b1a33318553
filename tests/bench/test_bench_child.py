"""Running measured children: real processes, their output, exit codes and peak RSS."""

import resource
import sys

import pytest

from benchmarks.child import run_checked, run_child
from benchmarks.errors import SetupError


def test_peak_rss_is_the_childs_own():
    # 200 MB touched by the child.
    child = run_child([sys.executable, "-c", "b = bytearray(200_000_000); print(len(b))"])
    assert child.returncode == 0
    assert child.stdout.strip() == "200000000"
    assert child.max_rss_kib * 1024 >= 200_000_000


def test_peak_rss_does_not_include_this_process():
    # This interpreter (pytest) is far larger than `true`; a child's figure must not
    # inherit it (the pitfall of ru_maxrss across fork and exec).
    child = run_child(["true"])
    assert child.rss_source == "gnu-time"
    assert child.max_rss_kib < resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert child.max_rss_kib < 5 * 1024


def test_exit_code_and_stderr_are_kept():
    child = run_child(
        [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"]
    )
    assert child.returncode == 3
    assert child.tail() == "boom"


def test_run_checked_raises_with_the_childs_message():
    with pytest.raises(SetupError, match="exited with code 4:\nbad input"):
        run_checked([sys.executable, "-c", "import sys; print('bad input'); sys.exit(4)"])


def test_a_child_past_its_time_limit_is_killed():
    with pytest.raises(SetupError, match="time limit"):
        run_child([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)


def test_a_missing_program_is_a_setup_error():
    with pytest.raises(SetupError, match="cannot start"):
        run_child(["/nonexistent/contio-engine"])
