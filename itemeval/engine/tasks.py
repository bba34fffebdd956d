"""The inspect tasks itemeval runs: one per task spec, its samples the spec's cells,
its solver one gated model call (or a stored solution replayed to a model-graded
scorer); and the models they call."""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import asdict
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Target
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .. import signals
from ..errors import ConfigError
from ..plan.budget import CallGate
from ..records import Cell, TaskSpec, draw_seed
from . import compat, reply_capture, send_guard
from .feed import task_dataset
from .hooks import calling, hand_on
from .log_scores import NO_CALL, VERDICT, grade_scorer
from .samples import event_usage, usage_counts

# What setting up one condition's model can raise (unknown provider, missing key or
# package); such a condition fails alone while the others run.
TASK_BUILD_ERRORS = (
    compat.prerequisite_error(),
    ValueError,
    RuntimeError,
    ImportError,
)


@solver
def _generate_once(cache_scope: str | None, gate: CallGate | None) -> Solver:
    """One model call per sample, cached per condition and replication, gated by the
    spend cap."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        key = str(state.sample_id)
        if signals.stop_requested() or (
            gate is not None and not await gate.acquire(key, _sent_text(state))
        ):
            state.metadata[NO_CALL] = True
            state.completed = True
            return state
        cache: bool | CachePolicy = False
        if cache_scope is not None:
            cache = cache_policy(cache_scope, state.metadata)
        # a first Ctrl-C waits for this call, so its paid reply is kept
        with signals.call_in_flight():
            try:
                with calling(state):
                    state = await _generate_once_sent(state, generate, cache)
                hand_on(state)  # if the usage hook did not (a cached reply, no usage)
            finally:
                if gate is not None:
                    await gate.release(key, _charged(state), _last_call_was_cached())
        return state

    return solve


UNSENT_ROUNDS = 3
"""How many times a call whose every attempt timed out before one request was written
(waiting on a connection that never opened) is asked again; not attempts against
`solvers.max_retries`, as nothing reached the provider (README "Retries")."""


async def _generate_once_sent(
    state: TaskState, generate: Generate, cache: bool | CachePolicy
) -> TaskState:
    """The call; asked again, up to UNSENT_ROUNDS times, while inspect gave up on it
    at its attempt timeout with no request written."""
    for round_ in range(UNSENT_ROUNDS + 1):
        with send_guard.counting() as written:
            try:
                return await _generate_past_empty(state, generate, cache)
            except Exception as exc:
                if written[0] or not _timed_out(exc) or round_ == UNSENT_ROUNDS:
                    raise
        _say_once(
            "a call timed out before its request was written (no connection "
            "opened in time): asked again, not counted against solvers.max_retries"
        )
    raise AssertionError("unreachable")  # pragma: no cover


def _timed_out(exc: BaseException | None) -> bool:
    """inspect's AttemptTimeoutError, or tenacity's RetryError whose last attempt
    raised it (inspect's retries ran out). By name: the class is not public API in
    the whole tested range."""
    last = getattr(exc, "last_attempt", None)
    if last is not None and hasattr(last, "exception"):
        exc = last.exception()
    return type(exc).__name__ == "AttemptTimeoutError"


async def _generate_past_empty(
    state: TaskState, generate: Generate, cache: bool | CachePolicy
) -> TaskState:
    """The call, asked again when inspect's cache answered it with an empty reply.

    inspect caches a reply with no choices like any other, so that error came back on
    every re-run. Such an entry is passed over: the call is made afresh under a cache
    scope of its own (a later run finds the good reply there).
    """
    sent = len(state.messages)
    seed = draw_seed(state.metadata)
    draw = {} if seed is None else {"seed": seed}
    try:
        return await generate(state, cache=cache, **draw)
    except IndexError:  # inspect reading the first choice of a reply with none
        if state.output.choices or not isinstance(cache, CachePolicy):
            raise
        if not _last_call_was_cached():
            raise  # a fresh empty reply: the provider's error, kept as the row's
    _say_once(
        "inspect's response cache held an empty reply (no choices) for a call: "
        "passed over, the call is made again"
    )
    del state.messages[sent:]
    fresh = CachePolicy(
        expiry=cache.expiry,
        per_epoch=cache.per_epoch,
        scopes={**(cache.scopes or {}), "itemeval_after_empty": "1"},
    )
    return await generate(state, cache=fresh, **draw)


_said: set[str] = set()


def _say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        print(f"note: {message}", file=sys.stderr)


def cache_policy(scope: str, metadata: dict[str, Any]) -> CachePolicy:
    """A cell's cache policy: kept apart per condition (its scope), replication and
    judge draw, so a later draw is never a cache hit of another (draw 1 keeps the
    scopes it had before draws existed, and with them its cached replies)."""
    scopes = {"condition": scope, "replication": str(metadata.get("replication", 1))}
    if int(metadata.get("draw", 1)) != 1:
        scopes["draw"] = str(metadata["draw"])
    return CachePolicy(expiry=None, per_epoch=False, scopes=scopes)


def _sent_text(state: TaskState) -> str:
    """Every message the call sends (system and shots too), for its worst case."""
    return "\n".join(message.text for message in state.messages)


def _last_call_was_cached() -> bool:
    events = [event for event in transcript().events if isinstance(event, ModelEvent)]
    return bool(events and events[-1].cache == "read")


@solver
def _replay_and_score(scorer: Any, gate: CallGate | None) -> Solver:
    """The stored solution as the model's output, then inspect's model-graded scorer
    on it (its calls are the cost)."""
    from .verdicts import to_result

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        solution = state.metadata["solution"]
        state.output = ModelOutput.from_content(
            model=str(state.model), content=solution
        )
        state.messages.append(state.output.message)
        key = str(state.sample_id)
        prompt = f"{state.input_text}\n{solution}\n{state.metadata['targets']}"
        if signals.stop_requested() or (
            gate is not None and not await gate.acquire(key, prompt)
        ):
            state.metadata[NO_CALL] = True
            state.completed = True
            return state
        with signals.call_in_flight():
            try:
                score = await scorer(state, Target(list(state.metadata["targets"])))
                # plain values: the log stores JSON
                state.metadata[VERDICT] = asdict(to_result(score, solution))
                hand_on(state)  # the row first, then the cap's bookkeeping
            finally:
                if gate is not None:
                    await gate.release(key, _summed_usage(), _last_call_was_cached())
        return state

    return solve


def _charged(state: TaskState) -> dict[str, int | None] | None:
    """The running sample's last call's counts as charged: inspect's reading, else
    the transport's (a reply inspect could not read); None when it made no call."""
    events = [event for event in transcript().events if isinstance(event, ModelEvent)]
    if events and events[-1].output.usage is not None:
        return event_usage(events[-1]).usage
    return state.metadata.get(reply_capture.WIRE_USAGE)


def _summed_usage() -> dict[str, int | None]:
    """The usage of every model call of the running sample, as charged, added up."""
    total: dict[str, int | None] = dict.fromkeys(usage_counts(None), 0)
    for event in transcript().events:
        if isinstance(event, ModelEvent) and event.cache != "read":
            for name, value in event_usage(event).usage.items():
                total[name] = (total[name] or 0) + (value or 0)
    return total


def _message(turn: tuple[str, str]) -> ChatMessage:
    role, text = turn
    kinds = {"system": ChatMessageSystem, "assistant": ChatMessageAssistant}
    return kinds.get(role, ChatMessageUser)(content=text)


def sample_for(cell: Cell) -> Sample:
    """The inspect sample of one cell: its chat turns, then its prompt (and, for an
    agent, the item's options and targets)."""
    return Sample(
        id=cell.sample_id,
        input=[
            *map(_message, cell.preamble),
            *_history(cell.metadata),
            ChatMessageUser(content=cell.prompt),
        ],
        choices=cell.metadata.get("choices") if "solver" in cell.metadata else None,
        target=list(cell.metadata.get("targets") or [])
        if "solver" in cell.metadata
        else "",
        metadata=cell.metadata,
    )


def build_task(
    spec: TaskSpec, gate: CallGate | None = None, window: int | None = None
) -> Task:
    """One spec's inspect task; a `window` feeds its cells that many at a time."""
    if spec.scorer is not None:
        from .graders import build_model_graded

        scorer = build_model_graded(
            spec.scorer["name"],
            spec.scorer["params"],
            config=spec.config,
            cache_scope=spec.cache_scope,
        )
        step = _replay_and_score(scorer, gate)
    elif spec.agent is not None:
        return _agent_task(spec, gate, window)
    else:
        step = _generate_once(spec.cache_scope, gate)
    return Task(
        dataset=task_dataset(spec, window, sample_for),
        solver=[step],
        scorer=grade_scorer(spec.metadata),  # each verdict as a score in the log
        name=spec.name,
        model=build_model(spec.model),
        config=GenerateConfig(**spec.config),
        metadata=spec.metadata,
    )


def _agent_task(spec: TaskSpec, gate: CallGate | None, window: int | None) -> Task:
    """An agent condition's task: its solver, limits and sandbox; each of its calls
    gated and cached (engine/agents.py)."""
    from .agents import agent_solver, gate_model, sandbox_of

    agent = spec.agent
    assert agent is not None
    model = gate_model(
        build_model(spec.model),
        gate,
        spec.cache_scope,
        lambda scope: cache_policy(scope, _running_metadata()),
    )
    return Task(
        dataset=task_dataset(spec, window, sample_for),
        solver=[agent_solver(spec)],
        scorer=grade_scorer(spec.metadata),
        name=spec.name,
        model=model,
        config=GenerateConfig(**spec.config),
        metadata=spec.metadata,
        sandbox=sandbox_of(agent),
        **agent.limits,
    )


def _running_metadata() -> dict[str, Any]:
    active = compat.sample_active()
    return dict(active.sample.metadata or {}) if active is not None else {}


def quiet_banner() -> None:
    """Load inspect's hooks now, without the banner its first model prints ("hooks
    enabled: 1").

    The banner names itemeval's own hook, which says nothing to a user, and printed in
    the middle of a run it leaves a second copy of the live display on screen. Anything
    else it would say (a telemetry or key-override hook the user installed) still
    reaches stderr, as plain text.
    """
    from rich.text import Text

    banner = io.StringIO()
    with contextlib.redirect_stdout(banner):
        # loads the registry hooks once per process; later calls print nothing
        compat.init_hooks()
    for line in Text.from_ansi(banner.getvalue()).plain.splitlines():
        if line.startswith("- ") and not line.startswith("- hooks enabled"):
            print(f"inspect-ai: {line[2:]}", file=sys.stderr)


def _history(metadata: dict[str, Any]) -> list[Any]:
    """The turns of an inspect task's chat sample before its last user turn (text)."""
    kinds = {"system": ChatMessageSystem, "assistant": ChatMessageAssistant}
    turns = metadata.get("history") or []
    return [
        kinds.get(turn["role"], ChatMessageUser)(content=turn["content"])
        for turn in turns
    ]


def build_model(name: str) -> Any:
    # The first get_model() of a process prints inspect's hooks banner on stdout, which
    # belongs to `--json`. Not memoized: a memoized model keeps the endpoint and key it
    # was built with, so a later run in the same process would ignore a changed
    # <SERVICE>_BASE_URL / _API_KEY.
    quiet_banner()
    with contextlib.redirect_stdout(sys.stderr):
        return reply_capture.capture(send_guard.guard(get_model(name, memoize=False)))


def check_providers(models: list[str]) -> None:
    """A ConfigError naming every model whose provider inspect does not know, before
    anything is written.

    Matched as inspect's `get_model` matches providers: by the registered provider's
    unqualified name.
    """
    # itemeval's own offline provider, whatever the entry points say
    from .offline import provider  # noqa: F401

    known = compat.model_providers()
    unknown = sorted({m for m in models if m.partition("/")[0] not in known})
    if unknown:
        providers = ", ".join(sorted({m.partition("/")[0] for m in unknown}))
        raise ConfigError(
            f"unknown model provider in {', '.join(map(repr, unknown))}: "
            "inspect-ai knows no provider "
            f"{providers!r}; check the spelling, or install the provider's "
            "package (see inspect-ai's "
            "list of model providers)"
        )
