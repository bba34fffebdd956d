"""A Ctrl-C that Python raised inside a finalizer is not lost (issue 49): the screen
of a launch once stayed at 12/30 after one, printed as "Exception ignored in:
<function _forget_snapshot.<locals>.forget>". itemeval delivers it again, to the
handler in place by then."""

from __future__ import annotations

import gc
import signal
import sys
import threading
import time

import pytest

from itemeval import signals

pytestmark = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="signal handlers are the main thread's",
)


class _Finalized:
    def __del__(self) -> None:
        raise KeyboardInterrupt  # as Python's SIGINT handler does, wherever it lands


@pytest.fixture(autouse=True)
def fresh():
    before = signal.getsignal(signal.SIGINT)
    signals.install()
    yield
    signals.install()
    signal.signal(signal.SIGINT, before)


def _until(condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)  # the main thread runs Python code: the signal lands here


def test_an_interrupt_dropped_in_a_finalizer_reaches_the_handler_in_place():
    seen: list[int] = []
    signal.signal(signal.SIGINT, lambda number, frame: seen.append(number))
    _Finalized()
    gc.collect()  # Python drops the KeyboardInterrupt here
    _until(lambda: seen)
    assert seen == [signal.SIGINT]


BLOCKED = """
import gc, signal, time
from itemeval import signals
signals.install()
signal.signal(signal.SIGINT, signal.default_int_handler)
class Finalized:
    def __del__(self):
        raise KeyboardInterrupt
started = time.monotonic()
try:
    Finalized()
    gc.collect()
    time.sleep(60)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted after", round(time.monotonic() - started, 3))
"""


def test_a_main_thread_blocked_in_a_system_call_is_woken_by_it():
    """Under Python's own handler it is a KeyboardInterrupt again, even while the
    main thread waits in a system call (a launcher in waitpid for its shards): a
    process of its own, as a launcher is."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", BLOCKED], capture_output=True, text=True, timeout=120
    )
    assert done.stdout.startswith("interrupted after"), (done.stdout, done.stderr)
    assert float(done.stdout.split()[-1]) < 50


def test_other_unraisable_errors_still_reach_the_earlier_hook(monkeypatch):
    class Broken:
        def __del__(self) -> None:
            raise ValueError("a finalizer's own error")

    reached: list[BaseException] = []
    monkeypatch.setattr(
        sys.unraisablehook, "earlier", lambda u: reached.append(u.exc_value)
    )
    seen: list[int] = []
    signal.signal(signal.SIGINT, lambda number, frame: seen.append(number))
    Broken()
    gc.collect()
    assert [str(e) for e in reached] == ["a finalizer's own error"] and seen == []
