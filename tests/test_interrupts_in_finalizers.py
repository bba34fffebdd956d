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


def test_under_python_s_own_handler_it_is_a_keyboard_interrupt_again():
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with pytest.raises(KeyboardInterrupt):
        _Finalized()
        gc.collect()
        _until(lambda: False, timeout=30.0)


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
