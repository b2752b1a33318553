"""The local-process runtime with real child processes and real signals."""

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from contio.containers.processes import ProcessRuntime
from contio.errors import Interrupted
from contio.signals import interrupts_raise

# A child that reports its pid, says it is ready, and waits for a signal.
CHILD = """
import os, pathlib, signal, sys
out = pathlib.Path(sys.argv[1])
def on_signal(signum, frame):
    (out / "got").write_text(str(signum))
    sys.exit(1)
signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv[2] == "ignore" else on_signal)
(out / "pid").write_text(str(os.getpid()))
(out / "ready").write_text("")
while True:
    signal.pause()
"""


def _signal_self_when_ready(ready: Path, signum: int) -> threading.Thread:
    def wait_then_signal() -> None:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.01)  # polling for a condition, not a guess at timing
        os.kill(os.getpid(), signum)

    thread = threading.Thread(target=wait_then_signal, daemon=True)
    thread.start()
    return thread


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_exit_code_and_output_files(tmp_path):
    runtime = ProcessRuntime()
    code = runtime.run(
        [
            sys.executable,
            "-c",
            "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)",
        ],
        stdout=tmp_path / "o.txt",
        stderr=tmp_path / "e.txt",
    )
    assert code == 3
    assert (tmp_path / "o.txt").read_text() == "out\n"
    assert (tmp_path / "e.txt").read_text() == "err\n"


def test_output_files_are_never_replaced(tmp_path):
    (tmp_path / "o.txt").write_text("earlier result")
    with pytest.raises(FileExistsError):
        ProcessRuntime().run(["true"], stdout=tmp_path / "o.txt", stderr=tmp_path / "e.txt")
    assert (tmp_path / "o.txt").read_text() == "earlier result"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_is_forwarded_and_the_child_reaped(tmp_path, signum):
    child = CHILD.replace("signal.SIGINT, signal.SIG_IGN", f"{int(signum)}, signal.SIG_IGN")
    _signal_self_when_ready(tmp_path / "ready", signum)
    with pytest.raises(Interrupted) as info, interrupts_raise():
        ProcessRuntime().run(
            [sys.executable, "-c", child, str(tmp_path), "handle"],
            stdout=tmp_path / "o.txt",
            stderr=tmp_path / "e.txt",
        )
    assert info.value.signum == signum
    assert (tmp_path / "got").read_text() == str(int(signum))
    assert _gone(int((tmp_path / "pid").read_text()))


def test_a_child_that_ignores_the_signal_is_killed_after_the_grace_period(tmp_path):
    _signal_self_when_ready(tmp_path / "ready", signal.SIGINT)
    with pytest.raises(Interrupted), interrupts_raise():
        ProcessRuntime(stop_grace_seconds=0.2).run(
            [sys.executable, "-c", CHILD, str(tmp_path), "ignore"],
            stdout=tmp_path / "o.txt",
            stderr=tmp_path / "e.txt",
        )
    assert not (tmp_path / "got").exists()
    assert _gone(int((tmp_path / "pid").read_text()))
