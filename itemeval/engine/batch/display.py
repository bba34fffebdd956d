"""What a run shows while it waits on provider batches (which may take hours): how
many batches are submitted, running and done, the requests answered, the oldest
batch's age, and that stopping now loses nothing."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence

from .client import Status
from .ledger import Submission

SAFE_TO_STOP = (
    "safe to stop (Ctrl-C) and re-run the same command later: the batches keep "
    "running at the provider and are collected then"
)


def age_text(seconds: float) -> str:
    """An age as people read it: 45s, 12m, 3h05m."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def waiting_line(
    waiting: Sequence[Submission],
    statuses: Mapping[str, Status],
    answered: int,
    now: float,
) -> str:
    """One line on the batches a run waits on."""
    states = [statuses.get(s.id) for s in waiting]
    running = sum(1 for st in states if st is not None and st.status == "in_progress")
    requests = sum(len(s.requests) for s in waiting)
    done = sum(st.completed + st.failed for st in states if st is not None)
    oldest = min((s.created_at for s in waiting), default=now)
    return (
        f"batches: {len(waiting)} open ({running} in progress), "
        f"{answered} requests collected, {done}/{requests} answered in open "
        f"batches, oldest {age_text(now - oldest)}"
    )


class WaitingDisplay:
    """Prints the waiting line on stderr when it changes, and once that it is safe to
    stop; silent with `--display none`."""

    def __init__(self, display: str) -> None:
        self.on = display != "none"
        self._last = ""
        self._told = False

    def show(
        self,
        waiting: Sequence[Submission],
        statuses: Mapping[str, Status],
        answered: set[str],
    ) -> None:
        if not self.on:
            return
        line = waiting_line(waiting, statuses, len(answered), time.time())
        if not self._told:
            print(SAFE_TO_STOP, file=sys.stderr, flush=True)
            self._told = True
        if line != self._last:
            print(line, file=sys.stderr, flush=True)
            self._last = line
