"""inspect's hooks, and the route they hand each finished sample along: to the sink of
the eval that ran it, as soon as the sample's calls return.

inspect registers hooks once per process and calls them for every eval, so a hook
finds its eval's route in a context variable that `routed` sets around the eval call.
inspect runs the eval's event loop in the calling thread and each sample, task and
hook in an asyncio task copied from the caller's context (checked on 0.3.285: every
hook and solver saw the value set around `eval()`), so the route reaches exactly the
samples of that one eval, and none once it returns.
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from inspect_ai.event import ModelEvent
from inspect_ai.hooks import (
    BeforeModelGenerate,
    Hooks,
    ModelUsageData,
    RunStart,
    SampleEnd,
    TaskStart,
    hooks,
)
from inspect_ai.log import transcript
from inspect_ai.model import ModelOutput
from inspect_ai.solver import TaskState
from inspect_ai.util import LimitExceededError

from .. import heap, signals
from ..outcomes import SampleResult
from ..redact import redact_log_handlers
from . import compat
from .compat import sample_active
from .samples import read_sample, read_state

# the log file name inspect will use, known when the task starts
eval_log_name = compat.eval_log_name()

# the sample's result already went to the sink when its calls returned
HANDED_ON = "itemeval_handed_on"
STOPPED_MESSAGE = "itemeval stopped: no call starts after an interrupt"

SampleSink = Callable[[SampleResult], None]


@dataclass
class Route:
    """Where one eval's finished samples go, and what its hooks learn on the way."""

    sink: SampleSink
    log_prefix: Path
    logprob_tokens: int
    log_files: dict[str, str] = field(default_factory=dict)
    """The `.eval` log name of each running eval, by eval id."""
    errored: set[str] = field(default_factory=set)
    """Evals with a failed sample: their logs may hold a provider's error text, to be
    scrubbed of credentials."""

    def log_file(self, eval_id: str | None) -> str | None:
        name = self.log_files.get(eval_id) if eval_id is not None else None
        return str(self.log_prefix / name) if name else None


_ROUTE: contextvars.ContextVar[Route | None] = contextvars.ContextVar(
    "itemeval_route", default=None
)
_CALLING: contextvars.ContextVar[TaskState | None] = contextvars.ContextVar(
    "itemeval_calling", default=None
)
"""The sample whose one model call is its row (a generate cell), while it calls."""


@contextlib.contextmanager
def routed(route: Route) -> Iterator[Route]:
    """Every sample that makes its calls inside this block (in this context) goes to
    `route.sink`.

    A sample's result goes out as soon as its model calls return, not when inspect ends
    the sample (seconds later on a busy machine), so a kill in between loses no paid
    reply. Samples that never made their call (refused by the spend cap, stopped by a
    signal) are not passed on: their cells stay missing.
    """
    token = _ROUTE.set(route)
    try:
        yield route
    finally:
        _ROUTE.reset(token)


@hooks(name="itemeval", description="streams finished samples to itemeval's journal")
class Journaling(Hooks):
    async def on_run_start(self, data: RunStart) -> None:
        if _ROUTE.get() is not None:
            signals.watch_interrupts()
            redact_log_handlers()

    async def on_task_start(self, data: TaskStart) -> None:
        route = _ROUTE.get()
        if eval_log_name is not None and route is not None:
            spec = data.spec
            name = eval_log_name(
                task=spec.task,
                task_id=spec.task_id,
                created=spec.created,
                model=spec.model,
            )
            route.log_files[data.eval_id] = name + ".eval"

    async def on_before_model_generate(self, data: BeforeModelGenerate) -> None:
        # Past the connection semaphore, each attempt (retries included): after a
        # signal no call starts (send_guard withholds the requests of calls already
        # past here). inspect lets only a limit error through a hook; the sample then
        # ends without a row. A call let through counts as in flight for the drain.
        if _ROUTE.get() is not None:
            if signals.stop_requested():
                raise LimitExceededError(
                    "operator", value=1, limit=1, message=STOPPED_MESSAGE
                )
            heap.settle()  # inside the eval's frozen heap, which ends with it
        signals.call_started()

    async def on_model_usage(self, data: ModelUsageData) -> None:
        # The earliest point inspect shows a parsed reply, still inside its call: before
        # it caches the reply, gives the connection back, puts the output in the
        # sample's state and returns to the solver (issue 26 case 8).
        state = _CALLING.get()
        if state is None or _ROUTE.get() is None:
            return
        events = [e for e in transcript().events if isinstance(e, ModelEvent)]
        if events and not events[-1].pending and events[-1].output.choices:
            hand_on(state, events[-1].output)

    async def on_sample_end(self, data: SampleEnd) -> None:
        # A sample whose row went out when its calls returned is done; this catches the
        # rest (errors).
        route = _ROUTE.get()
        if route is None:
            return
        heap.settle()  # a first sample that ended before any call (an error)
        if not data.sample.metadata.get(HANDED_ON):
            result = read_sample(
                data.sample,
                route.log_file(data.eval_id),
                logprob_tokens=route.logprob_tokens,
            )
            if result.error is not None:
                route.errored.add(data.eval_id)
            if not result.skipped:
                route.sink(result)


@contextlib.contextmanager
def calling(state: TaskState) -> Iterator[None]:
    """The sample's row goes out from inside its model call, as soon as inspect has
    parsed the reply (a reply with no choices, or one from the cache, goes out when the
    call returns)."""
    token = _CALLING.set(state)
    try:
        yield
    finally:
        _CALLING.reset(token)


def calling_state() -> TaskState | None:
    """The generate cell whose one model call is running in this context, if any."""
    return _CALLING.get() if _ROUTE.get() is not None else None


def route_log_file(eval_id: str | None) -> str | None:
    route = _ROUTE.get()
    return route.log_file(eval_id) if route is not None else None


def route_logprob_tokens() -> int:
    route = _ROUTE.get()
    return route.logprob_tokens if route is not None else 0


def hand_on_result(state: TaskState, result: SampleResult) -> None:
    """Pass a result read elsewhere (the transport) on for the running sample, once."""
    route = _ROUTE.get()
    if route is None or state.metadata.get(HANDED_ON):
        return
    route.sink(result)
    state.metadata[HANDED_ON] = True


def hand_on(state: TaskState, output: ModelOutput | None = None) -> None:
    """Pass the running sample's result to the sink now that its calls have returned
    (once: a sample already handed on is left alone)."""
    route = _ROUTE.get()
    if route is None or state.metadata.get(HANDED_ON):
        return
    active = sample_active()
    try:
        result = read_state(
            state,
            route.log_file(active.eval_id if active is not None else None),
            logprob_tokens=route.logprob_tokens,
            output=output,
        )
    # never fail a sample whose call succeeded: its end reads it instead
    except Exception:  # noqa: BLE001 - the reason above
        return
    route.sink(result)
    state.metadata[HANDED_ON] = True
