"""SIGTERM and SIGHUP (what SLURM, Kubernetes, `timeout` and a closed terminal send) stop a command the way
Ctrl-C does: no new call starts, finished rows are kept, the manifest says `interrupted`. The exit code
then says which signal it was: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.

The stop flag is set synchronously by the signal handler, before the event loop runs another step, so
a sample that would otherwise slip a call in while inspect's cancellation spreads sees it first.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

from .errors import EXIT_INTERRUPTED

_received: list[int] = []
_stop = threading.Event()


def install() -> None:
    """Turn SIGTERM and SIGHUP into the Ctrl-C path; only the main thread may set handlers."""
    _stop.clear()
    if threading.current_thread() is not threading.main_thread():
        return
    _received.clear()
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _as_interrupt)


def stop_requested() -> bool:
    """True once the command was told to stop (a signal, or a failed write): start no further call."""
    return _stop.is_set()


def request_stop() -> None:
    """Stop the way Ctrl-C does: no call starts after this, and inspect cancels the running eval."""
    _stop.set()
    signal.raise_signal(signal.SIGINT)


def watch_interrupts() -> None:
    """Make the SIGINT handler in place (the running event loop's) also set the stop flag first.

    Called from inside the eval, once its event loop has installed its own handler; the caller
    restores the handler it saved before the eval.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGINT)
    if getattr(current, "itemeval_watching", False):
        return

    def flag_then_interrupt(number: int, frame: FrameType | None) -> Any:
        _stop.set()
        if callable(current):
            return current(number, frame)
        return signal.default_int_handler(number, frame)

    flag_then_interrupt.itemeval_watching = True  # type: ignore[attr-defined]
    signal.signal(signal.SIGINT, flag_then_interrupt)


@contextlib.contextmanager
def sigint_handler_kept() -> Iterator[None]:
    """Put back, afterwards, the SIGINT handler in place before the block (an eval and watch_interrupts change it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGINT)
    try:
        yield
    finally:
        if before is not None:  # None: set outside Python, nothing to put back
            signal.signal(signal.SIGINT, before)


def _as_interrupt(number: int, frame: FrameType | None) -> None:
    if not _received:
        _received.append(number)
    request_stop()  # inspect's own Ctrl-C handling stops the eval and keeps its samples


def interrupted_exit_code() -> int:
    """128 + the signal that stopped the command (130 for Ctrl-C)."""
    return 128 + _received[0] if _received else EXIT_INTERRUPTED
