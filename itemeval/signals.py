"""SIGTERM and SIGHUP (what SLURM, Kubernetes, `timeout` and a closed terminal send) stop a command the way
Ctrl-C does: no new call starts, finished rows are kept, the manifest says `interrupted`. The exit code
then says which signal it was: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP."""

from __future__ import annotations

import signal
import threading
from types import FrameType

from .errors import EXIT_INTERRUPTED

_received: list[int] = []


def install() -> None:
    """Turn SIGTERM and SIGHUP into the Ctrl-C path; only the main thread may set handlers."""
    if threading.current_thread() is not threading.main_thread():
        return
    _received.clear()
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _as_interrupt)


def _as_interrupt(number: int, frame: FrameType | None) -> None:
    if not _received:
        _received.append(number)
    signal.raise_signal(signal.SIGINT)  # inspect's own Ctrl-C handling stops the eval and keeps its samples


def interrupted_exit_code() -> int:
    """128 + the signal that stopped the command (130 for Ctrl-C)."""
    return 128 + _received[0] if _received else EXIT_INTERRUPTED
