"""SIGTERM and SIGHUP (what SLURM, Kubernetes, `timeout` and a closed terminal send)
stop a command the way Ctrl-C does: no new call starts, finished rows are kept, the
manifest says `interrupted`. The exit code then says which signal it was: 130 for
SIGINT, 143 for SIGTERM, 129 for SIGHUP.

The stop flag is set synchronously by the signal handler, before the event loop runs
another step, so a sample that would otherwise slip a call in while inspect's
cancellation spreads sees it first.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

from .errors import EXIT_INTERRUPTED

if TYPE_CHECKING:  # asyncio loads at first use (start-up time)
    from asyncio import AbstractEventLoop

DRAIN_S = 10.0
"""After a first signal, how long calls in flight may take to return before the eval
is cancelled."""
HARD_STOP_S = 15.0
"""After the eval is cancelled, how long it may take to unwind before the process
exits anyway (every row is in the journal already). Seen: a cancelled eval under
heavy load waiting forever for a task with a call held by its provider."""

_received: list[int] = []
_stop = threading.Event()
_drain = True
_in_flight = 0
_cancel: Callable[[], None] | None = None
_this_call: contextvars.ContextVar[list[bool] | None] = contextvars.ContextVar(
    "itemeval_call", default=None
)
"""The running sample's [counted in _in_flight], shared with the tasks it
starts."""
_hard_stop: threading.Timer | None = None


def install() -> None:
    """Turn SIGTERM and SIGHUP into the Ctrl-C path; only the main thread may set
    handlers."""
    global _drain, _in_flight, _cancel
    _stop.clear()
    _drain, _in_flight, _cancel = True, 0, None
    if threading.current_thread() is not threading.main_thread():
        return
    _received.clear()
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _as_interrupt)
    if not getattr(sys.unraisablehook, "itemeval_resends", False):
        sys.unraisablehook = _Resending(sys.unraisablehook)


class _Resending:
    """sys.unraisablehook that gives back a Ctrl-C which landed in a finalizer.

    While Python's own SIGINT handler is in place (an eval's start and end, so that
    its event loop installs its handler; the whole of a launcher), the
    KeyboardInterrupt is raised wherever the main thread is; inside a finalizer or a
    weakref callback (inspect forgets message snapshots in one) Python prints
    "Exception ignored" and drops it, and the run went on as if no key had been
    pressed. The signal is delivered again from a thread, a moment later, to the
    handler in place then (RESEND_S: out of this hook, where it would be dropped
    again).
    """

    itemeval_resends = True

    def __init__(self, earlier: Callable[[Any], Any]) -> None:
        self.earlier = earlier

    def __call__(self, unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # a real signal to the main thread, not _thread.interrupt_main: only a
            # signal wakes a main thread blocked in a system call (a launcher waiting
            # for its shards in waitpid stayed there)
            main = threading.main_thread().ident
            timer = threading.Timer(
                RESEND_S, signal.pthread_kill, (main, signal.SIGINT)
            )
            timer.daemon = True
            timer.start()
            return
        self.earlier(unraisable)


RESEND_S = 0.01
"""How long after a dropped Ctrl-C it is delivered again: long enough for the main
thread to leave the finalizer and this hook."""


SEND_LOG_ENV = "ITEMEVAL_SEND_LOG"
"""A file to which each request's last check before it is written (`sent`) and the
moment the process saw a stop (`stop`) are appended, with time.monotonic() (one clock
for every process of the machine): benchmarks/bench_signals.py and the hostile-signals
test read it to prove no request passed the check after the stop."""


def log_event(kind: str) -> None:
    """Append `kind` and the time to the send log, when ITEMEVAL_SEND_LOG names one."""
    path = os.environ.get(SEND_LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{kind} {time.monotonic():.6f}\n")


def _set_stop() -> None:
    if not _stop.is_set():
        log_event("stop")
    _stop.set()


def stop_requested() -> bool:
    """True once the command was told to stop (a signal, or a failed write): start no
    further call."""
    return _stop.is_set()


def request_stop(*, drain: bool = True) -> None:
    """Stop the way Ctrl-C does: no call starts after this; calls in flight may
    finish first when `drain`."""
    global _drain
    _drain = _drain and drain
    signal.raise_signal(signal.SIGINT)


def drain_seconds() -> float:
    """How long a first signal lets calls in flight finish: ITEMEVAL_DRAIN_S, else
    DRAIN_S."""
    try:
        return max(0.0, float(os.environ.get("ITEMEVAL_DRAIN_S", DRAIN_S)))
    except ValueError:
        return DRAIN_S


@contextlib.contextmanager
def call_in_flight() -> Iterator[None]:
    """Around one sample's model call(s). Once a call of it gets past the connection
    semaphore (call_started), a first signal waits for the sample to return before
    cancelling."""
    counted = [False]
    token = _this_call.set(counted)
    try:
        yield
    finally:
        _this_call.reset(token)
        if counted[0]:
            _uncount()


def call_started() -> None:
    """The running sample's call got a connection and is about to be made: count it
    in flight (once per sample, retries included).

    Samples still waiting for a connection are not counted: after a signal none of them
    makes its call, and waiting for them would hold the drain for nothing.
    """
    global _in_flight
    counted = _this_call.get()
    if counted is not None and not counted[0]:
        counted[0] = True
        _in_flight += 1


def _uncount() -> None:
    global _in_flight
    _in_flight -= 1
    if _in_flight == 0 and _stop.is_set() and _cancel is not None:
        _cancel()  # nothing left worth waiting for


def watch_interrupts() -> None:
    """Make the SIGINT handler in place (the running event loop's) stop calls first, and
    cancel only after a drain.

    The first signal sets the stop flag (no call starts after it) and gives the calls in
    flight up to drain_seconds() to return, so replies already paid for are kept; then,
    or at a second signal, the event loop's own handler cancels the eval. Called from
    inside the eval, once its loop has installed that handler; the caller restores the
    handler it saved before the eval.
    """
    global _cancel
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGINT)
    if getattr(current, "itemeval_watching", False):
        return
    import asyncio  # only inside an eval: a command that runs none never loads it

    handler = _DrainingHandler(asyncio.get_running_loop(), current)
    _cancel = handler.cancel
    signal.signal(signal.SIGINT, handler)


class _DrainingHandler:
    """The SIGINT handler watch_interrupts puts over the event loop's (`current`)."""

    itemeval_watching = True
    """Marks the handler as ours: a second watch_interrupts leaves it in place."""

    def __init__(self, loop: AbstractEventLoop, current: Any) -> None:
        self.loop, self.current = loop, current
        self.cancelled = False

    def cancel(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            _hard_stop_later()
            if callable(self.current):
                self.current(signal.SIGINT, None)

    def __call__(self, number: int, frame: FrameType | None) -> Any:
        first = not _stop.is_set()
        _set_stop()
        wait = drain_seconds() if _drain else 0.0
        if first and wait > 0 and _in_flight > 0:
            # scheduled thread-safely, which also wakes the loop: called plainly from
            # a signal handler, the timer is not seen while the loop sleeps in its
            # selector with no deadline (every call held by the provider), and the
            # eval never stops
            self.loop.call_soon_threadsafe(self.loop.call_later, wait, self.cancel)
            _say(
                f"stopping: no new calls; waiting up to {wait:g} s for "
                f"{_in_flight} call(s) in flight to return "
                "(interrupt again to stop now)"
            )
            return None
        if first or self.cancelled or not callable(self.current):
            self.cancel()
            return None
        # a further signal: the loop's own escalation
        return self.current(number, frame)


@contextlib.contextmanager
def interrupts_as_flag() -> Iterator[None]:
    """Between evals, a first Ctrl-C only sets the stop flag (the run stops before its
    next batch).

    Raising KeyboardInterrupt there is not safe: landing inside a finalizer, it is
    printed and lost. A second Ctrl-C raises it all the same.
    """

    def flag(number: int, frame: FrameType | None) -> None:
        if _stop.is_set():
            raise KeyboardInterrupt
        _set_stop()

    with _sigint_handler(flag):
        yield


def default_interrupts() -> contextlib.AbstractContextManager[None]:
    """Python's own SIGINT handler inside the block, so the event loop of an eval
    installs its own (see watch_interrupts); the handler before is put back
    afterwards. A Ctrl-C a finalizer dropped meanwhile is delivered again
    (_Resending)."""
    return _sigint_handler(signal.default_int_handler)


def sigint_as(
    handler: Callable[[int, FrameType | None], Any],
) -> contextlib.AbstractContextManager[None]:
    """`handler` for SIGINT inside the block, the one before it afterwards."""
    return _sigint_handler(handler)


@contextlib.contextmanager
def sigint_handler_kept() -> Iterator[None]:
    """Put back, afterwards, the SIGINT handler in place before the block (an eval
    and watch_interrupts change it)."""
    try:
        with _sigint_handler(None):
            yield
    finally:
        _forget_cancel()


@contextlib.contextmanager
def _sigint_handler(
    handler: Callable[[int, FrameType | None], Any] | None,
) -> Iterator[None]:
    """`handler` (when given) for SIGINT inside the block, the one before it
    afterwards; main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGINT)
    if handler is not None:
        signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        if before is not None:  # None: set outside Python, nothing to put back
            signal.signal(signal.SIGINT, before)


def _hard_stop_later() -> None:
    """Exit the process if the cancelled eval is still running HARD_STOP_S from now
    (disarmed when it ends)."""
    global _hard_stop

    def stop() -> None:
        _say(
            f"the eval did not stop within {HARD_STOP_S:g} s of its "
            "cancellation: exiting; every finished row is "
            "in the journal and the next command brings it into the store"
        )
        os._exit(interrupted_exit_code())

    _disarm_hard_stop()
    _hard_stop = threading.Timer(HARD_STOP_S, stop)
    _hard_stop.daemon = True
    _hard_stop.start()


def _disarm_hard_stop() -> None:
    global _hard_stop
    if _hard_stop is not None:
        _hard_stop.cancel()
        _hard_stop = None


def _say(message: str) -> None:
    """A line on stderr, unless stderr is gone: a shard whose launcher died writes
    into a closed pipe, and an error raised inside a signal handler would be
    swallowed by the event loop along with the stop itself."""
    try:
        print(message, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _forget_cancel() -> None:
    """The eval has ended: nothing is left to cancel, and no hard stop is needed."""
    global _cancel
    _cancel = None
    _disarm_hard_stop()


def _as_interrupt(number: int, frame: FrameType | None) -> None:
    if not _received:
        _received.append(number)
    request_stop()  # inspect's own Ctrl-C handling stops the eval and keeps its samples


def interrupted_exit_code() -> int:
    """128 + the signal that stopped the command (130 for Ctrl-C)."""
    return 128 + _received[0] if _received else EXIT_INTERRUPTED
