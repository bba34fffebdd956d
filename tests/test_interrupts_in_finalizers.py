"""A Ctrl-C that Python raised inside a finalizer is not lost (issue 49): the screen
of a launch once stayed at 12/30 after one, printed as "Exception ignored in:
<function _forget_snapshot.<locals>.forget>"."""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
import threading

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


def test_an_interrupt_dropped_in_a_finalizer_between_evals_stops_the_run():
    with signals.default_interrupts():
        _Finalized()
        gc.collect()
        assert not signals.stop_requested()  # Python dropped it; itemeval kept it
    assert signals.stop_requested()


def test_an_interrupt_dropped_while_an_eval_starts_reaches_its_handler():
    seen: list[int] = []

    async def eval_starting() -> None:
        signal.signal(signal.SIGINT, lambda number, frame: seen.append(number))
        signals.watch_interrupts()  # what on_run_start does, inside the loop

    _Finalized()
    gc.collect()
    asyncio.run(eval_starting())
    # no call in flight, so the handler cancels at once: the loop's own handler
    assert signals.stop_requested() and seen == [signal.SIGINT]


def test_other_unraisable_errors_still_reach_the_earlier_hook(monkeypatch):
    class Broken:
        def __del__(self) -> None:
            raise ValueError("a finalizer's own error")

    reached: list[BaseException] = []
    monkeypatch.setattr(
        sys.unraisablehook, "earlier", lambda u: reached.append(u.exc_value)
    )
    Broken()
    gc.collect()
    assert [str(e) for e in reached] == ["a finalizer's own error"]
    assert not signals.stop_requested()
