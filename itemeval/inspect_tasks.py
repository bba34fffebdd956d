"""The one place itemeval runs inspect-ai: build tasks, run them, and hand each
finished sample on as a plain record."""

from __future__ import annotations

import contextlib
import io
import logging
import re
import sys
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from inspect_ai import Task, TaskSource, eval
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ErrorEvent, ModelEvent
from inspect_ai.hooks import (
    BeforeModelGenerate,
    Hooks,
    RunStart,
    SampleEnd,
    TaskStart,
    hooks,
)
from inspect_ai.log import EvalLog, EvalSample, transcript
from inspect_ai.log._samples import sample_active
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
from inspect_ai.util import LimitExceededError

from . import heap, send_guard, signals
from .budget import CallGate
from .errors import ConfigError, is_write_failure
from .inspect_feed import task_dataset
from .log_scores import NO_CALL, VERDICT, grade_scorer
from .outcomes import SampleResult
from .records import Cell, TaskSpec
from .redact import redact, redactor

# the log file name inspect will use, known when the task starts (private in 0.3.285)
try:
    from inspect_ai._util.log_layout import eval_log_name
except (
    ImportError
):  # pragma: no cover - a later inspect moved it; rows then carry no log_file
    eval_log_name = None

# the sample's result already went to the sink when its calls returned
HANDED_ON = "itemeval_handed_on"
# inspect's HTTP level (between DEBUG and INFO), at which it logs every provider
# response
HTTP_LOG_LEVEL = 15
STOPPED_MESSAGE = "itemeval stopped: no call starts after an interrupt"
# What setting up one condition's model can raise (unknown provider, missing key or
# package); such a condition fails alone while the others run.
TASK_BUILD_ERRORS = (PrerequisiteError, ValueError, RuntimeError, ImportError)


# ---- routing finished samples to whoever runs the stage ------------------------------

SampleSink = Callable[[SampleResult], None]


@dataclass
class _Route:
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


_route: _Route | None = None


@hooks(name="itemeval", description="streams finished samples to itemeval's journal")
class _Journaling(Hooks):
    async def on_run_start(self, data: RunStart) -> None:
        if _route is not None:
            signals.watch_interrupts()
            _redact_log_handlers()

    async def on_task_start(self, data: TaskStart) -> None:
        if eval_log_name is not None and _route is not None:
            spec = data.spec
            name = eval_log_name(
                task=spec.task,
                task_id=spec.task_id,
                created=spec.created,
                model=spec.model,
            )
            _route.log_files[data.eval_id] = name + ".eval"

    async def on_before_model_generate(self, data: BeforeModelGenerate) -> None:
        # Past the connection semaphore, each attempt (retries included): after a
        # signal no call starts (send_guard withholds the requests of calls already
        # past here). inspect lets only a limit error through a hook; the sample then
        # ends without a row. A call let through counts as in flight for the drain.
        if _route is not None and signals.stop_requested():
            raise LimitExceededError(
                "operator", value=1, limit=1, message=STOPPED_MESSAGE
            )
        signals.call_started()

    async def on_sample_end(self, data: SampleEnd) -> None:
        # A sample whose row went out when its calls returned is done; this catches the
        # rest (errors).
        if _route is not None and not data.sample.metadata.get(HANDED_ON):
            result = read_sample(
                data.sample,
                _route.log_file(data.eval_id),
                logprob_tokens=_route.logprob_tokens,
            )
            if result.error is not None:
                _route.errored.add(data.eval_id)
            if not result.skipped:
                _route.sink(result)


@contextlib.contextmanager
def sample_sink(
    sink: SampleSink, *, log_prefix: Path, logprob_tokens: int = 8
) -> Iterator[None]:
    """Every sample that made its calls inside this block is read into a SampleResult
    and passed to `sink`.

    A sample's result goes out as soon as its model calls return, not when inspect ends
    the sample (seconds later on a busy machine), so a kill in between loses no paid
    reply. Samples that never made their call (refused by the spend cap, stopped by a
    signal) are not passed on: their cells stay missing. `log_prefix` is prepended to
    each log file's name; the first `logprob_tokens` generated tokens' logprobs are
    kept.
    """
    global _route
    _route = _Route(sink, log_prefix, logprob_tokens)
    try:
        yield
    finally:
        _route = None


def _hand_on(state: TaskState) -> None:
    """Pass the running sample's result to the sink now that its calls have returned."""
    if _route is None:
        return
    active = sample_active()
    try:
        result = read_state(
            state,
            _route.log_file(active.eval_id if active is not None else None),
            logprob_tokens=_route.logprob_tokens,
        )
    except Exception:  # noqa: BLE001 - never fail a sample whose call succeeded: its end reads it instead
        return
    _route.sink(result)
    state.metadata[HANDED_ON] = True


# ---- building and running tasks ------------------------------------------------------


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
        with (
            signals.call_in_flight()
        ):  # a first Ctrl-C waits for this call, so its paid reply is kept
            try:
                state = await _generate_past_empty(state, generate, cache)
            finally:
                if gate is not None:
                    await gate.release(
                        key, _usage(state.output.usage), _last_call_was_cached()
                    )
            _hand_on(state)
        return state

    return solve


async def _generate_past_empty(
    state: TaskState, generate: Generate, cache: bool | CachePolicy
) -> TaskState:
    """The call, asked again when inspect's cache answered it with an empty reply.

    inspect caches a reply with no choices like any other, so that error came back on
    every re-run. Such an entry is passed over: the call is made afresh under a cache
    scope of its own (a later run finds the good reply there).
    """
    sent = len(state.messages)
    try:
        return await generate(state, cache=cache)
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
    return await generate(state, cache=fresh)


_said: set[str] = set()


def _say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        print(f"note: {message}", file=sys.stderr)


def cache_policy(scope: str, metadata: dict[str, Any]) -> CachePolicy:
    """A cell's cache policy: kept apart per condition (its scope) and replication."""
    scopes = {"condition": scope, "replication": str(metadata.get("replication", 1))}
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
    from .inspect_scorers import to_result

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
            finally:
                if gate is not None:
                    await gate.release(key, _summed_usage(), _last_call_was_cached())
            state.metadata[VERDICT] = asdict(
                to_result(score, solution)
            )  # plain values: the log stores JSON
            _hand_on(state)
        return state

    return solve


def _summed_usage() -> dict[str, int | None]:
    """The usage of every model call of the running sample, added up."""
    total: dict[str, int | None] = dict.fromkeys(_usage(None), 0)
    for event in transcript().events:
        if isinstance(event, ModelEvent) and event.cache != "read":
            for name, value in _usage(event.output.usage).items():
                total[name] = (total[name] or 0) + (value or 0)
    return total


def _message(turn: tuple[str, str]) -> ChatMessage:
    role, text = turn
    kinds = {"system": ChatMessageSystem, "assistant": ChatMessageAssistant}
    return kinds.get(role, ChatMessageUser)(content=text)


def sample_for(cell: Cell) -> Sample:
    """The inspect sample of one cell: its chat turns, then its prompt."""
    return Sample(
        id=cell.sample_id,
        input=[
            *map(_message, cell.preamble),
            *_history(cell.metadata),
            ChatMessageUser(content=cell.prompt),
        ],
        metadata=cell.metadata,
    )


def build_task(
    spec: TaskSpec, gate: CallGate | None = None, window: int | None = None
) -> Task:
    """One spec's inspect task; a `window` feeds its cells that many at a time."""
    if spec.scorer is not None:
        from .inspect_graders import build_model_graded

        scorer = build_model_graded(
            spec.scorer["name"],
            spec.scorer["params"],
            config=spec.config,
            cache_scope=spec.cache_scope,
        )
        step = _replay_and_score(scorer, gate)
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


def quiet_banner() -> None:
    """Load inspect's hooks now, without the banner its first model prints ("hooks
    enabled: 1").

    The banner names itemeval's own hook, which says nothing to a user, and printed in
    the middle of a run it leaves a second copy of the live display on screen. Anything
    else it would say (a telemetry or key-override hook the user installed) still
    reaches stderr, as plain text.
    """
    from inspect_ai.hooks._startup import init_hooks
    from rich.text import Text

    banner = io.StringIO()
    with contextlib.redirect_stdout(banner):
        # loads the registry hooks once per process; later calls print nothing
        init_hooks()
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


def response_cache_root() -> Path:
    """Where inspect keeps cached replies (one folder per model), not created."""
    from inspect_ai.model._cache import _cache_root

    return _cache_root()


def build_model(name: str) -> Any:
    # The first get_model() of a process prints inspect's hooks banner on stdout, which
    # belongs to `--json`. Not memoized: a memoized model keeps the endpoint and key it
    # was built with, so a later run in the same process would ignore a changed
    # <SERVICE>_BASE_URL / _API_KEY.
    quiet_banner()
    with contextlib.redirect_stdout(sys.stderr):
        return send_guard.guard(get_model(name, memoize=False))


LOG_BUFFER = 500  # finished samples an `.eval` log takes in one write, at most


def run_tasks(
    tasks: Iterable[Task],
    *,
    log_dir: Path,
    display: str,
    in_flight: int,
    keep_feeding: Callable[[], bool] = lambda: True,
    log_buffer: int = LOG_BUFFER,
) -> dict[str, str] | None:
    """Run the tasks in one eval, `in_flight` at a time, each starting as soon as an
    earlier one ends.

    Returns {task name: failure} for tasks that failed as a whole; once a task of some
    name failed, the later tasks of that name are skipped, as are all tasks once
    `keep_feeding()` is false. None when the user interrupted the eval (inspect then
    returns no logs).
    """
    quiet_banner()
    feed = _Feed(iter(tasks), keep_feeding)
    if not feed.start(in_flight):
        return {}
    # inspect prints its hooks banner on stdout, which belongs to `--json`; send it to
    # stderr.
    with (
        contextlib.redirect_stdout(sys.stderr),
        heap.frozen(collect_first=True),
        signals.sigint_handler_kept(),
        _redacted_logs(),
        _recording_refusals(),
    ):
        logs = eval(
            feed,
            log_dir=str(log_dir),
            display=display,  # type: ignore[arg-type]
            fail_on_error=False,
            max_tasks=max(
                2, in_flight
            ),  # a TaskSource is fed live only with more than one task at a time
            # The journal, not the .eval log, is the durable copy of each row, so
            # inspect may write the log in big batches and skip its realtime event
            # buffer (live view of running samples): together about 30% less CPU per
            # sample; finished samples keep their full transcripts.
            log_realtime=False,
            # each task holds its finished samples until this many are written: a
            # bound on the samples held, as the feed's window bounds those running
            log_buffer=log_buffer,
            # the rows are journaled already: do not read every sample back
            log_header_only=True,
            # a grade task's scorer writes each verdict into its log (log_scores.py);
            # a generate task has none, so nothing is scored there
            score=True,
        )
    if _route is not None:
        _scrub_logs(
            [
                log_dir / _route.log_files[eval_id]
                for eval_id in _route.errored
                if eval_id in _route.log_files
            ]
        )
    return _failures(logs) if logs else None


class _Feed(TaskSource):
    """Hands inspect the next task each time a running one ends, so no task waits for
    another's slowest call."""

    def __init__(self, tasks: Iterator[Task], keep_feeding: Callable[[], bool]) -> None:
        self.tasks = tasks
        self.keep_feeding = keep_feeding
        self.first: list[Task] = []
        self.failed: set[str] = set()
        self.running: dict[str, Task] = {}
        """Tasks handed out and not yet ended, by their first sample's id."""

    def start(self, count: int) -> list[Task]:
        """Take the first `count` tasks (fewer when the tasks run out): those the
        eval starts with."""
        self.first = [
            task
            for task in (self.next_task() for _ in range(count))
            if task is not None
        ]
        return self.first

    def initial_tasks(self) -> list[Task]:
        return self.first

    async def task_complete(self, log: EvalLog) -> list[Task] | None:
        if log.status == "error":
            self.failed.add(log.eval.task)
        ids = log.eval.dataset.sample_ids or []
        ended = self.running.pop(str(ids[0]), None) if ids else None
        if ended is not None and isinstance(ended.dataset, MemoryDataset):
            # inspect keeps every task of a running eval, samples included, until the
            # eval ends: its prompts would otherwise stay too (about 3 KB a cell,
            # measured at 9,000 cells).
            ended.dataset.samples.clear()
        task = self.next_task()
        return [task] if task is not None else None

    def next_task(self) -> Task | None:
        if signals.stop_requested() or not self.keep_feeding():
            return None
        task = next((task for task in self.tasks if task.name not in self.failed), None)
        if task is not None and len(task.dataset):
            self.running[str(task.dataset[0].id)] = task
        return task


def _scrub_logs(paths: list[Path]) -> None:
    """Rewrite these `.eval` logs without credentials: a provider's error text can echo
    the request's key.

    Only logs with a failed sample are read, so a run without errors pays nothing for
    this.
    """
    from inspect_ai.log import read_eval_log, write_eval_log

    for path in paths:
        if not path.is_file():
            continue
        log = read_eval_log(str(path))
        for sample in log.samples or []:
            for error in [sample.error] + [
                e.error for e in sample.events if isinstance(e, ErrorEvent)
            ]:
                if (
                    error is not None
                    # rich may wrap a key across styled lines; the plain traceback keeps
                    # it whole
                ):
                    error.traceback_ansi = error.traceback
        text = log.model_dump_json()
        clean = redact(text)
        if clean != text:
            write_eval_log(EvalLog.model_validate_json(clean), str(path))


class _RedactingFilter(logging.Filter):
    """Scrubs credentials from a record (its message, its extra fields, its
    exception) before any handler writes it."""

    _STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None)))

    def __init__(self) -> None:
        super().__init__("itemeval-redact")
        self.clean = redactor()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (
            TypeError,
            ValueError,
        ):  # arguments that do not fit the message: logging reports that itself
            return True
        if record.exc_info and record.exc_info[1] is not None:
            message = (
                f"{message}\n{''.join(traceback.format_exception(*record.exc_info))}"
            )
        clean = self.clean(message)
        if clean != message:
            record.msg, record.args, record.exc_info, record.exc_text = (
                clean,
                None,
                None,
                None,
            )
        for name, value in vars(
            record
        ).items():  # inspect's trace records carry the error in extra fields
            if name not in self._STANDARD and isinstance(value, str):
                setattr(record, name, self.clean(value))
        return True


_redacting: list[tuple[logging.Handler, _RedactingFilter]] = []


def _redact_log_handlers() -> None:
    """Put a redacting filter on every log handler now installed (inspect sets its
    own up as an eval starts)."""
    loggers = [
        logging.getLogger(),
        *(
            lg
            for lg in logging.Logger.manager.loggerDict.values()
            if isinstance(lg, logging.Logger)
        ),
    ]
    redacting = _RedactingFilter()
    for handler in {handler for lg in loggers for handler in lg.handlers}:
        if not any(isinstance(f, _RedactingFilter) for f in handler.filters):
            handler.addFilter(redacting)
            _redacting.append((handler, redacting))


@contextlib.contextmanager
def _redacted_logs() -> Iterator[None]:
    try:
        yield
    finally:
        while _redacting:
            handler, redacting = _redacting.pop()
            handler.removeFilter(redacting)


_OS_ERROR = re.compile(r"\b(?:OSError|IOError|PermissionError)\((\d+), '([^']*)'")


def write_error(failure: str) -> OSError | None:
    """The OSError behind a task failure that inspect reported as text, when it was a
    write the disk refused (inspect's own `.eval` log on a full disk)."""
    match = _OS_ERROR.search(failure)
    if match is None:
        return None
    error = OSError(int(match.group(1)), match.group(2))
    return error if is_write_failure(error) else None


def _failures(logs: list[EvalLog]) -> dict[str, str]:
    """The last line of each failed task's error, by task name."""
    failures = {}
    for log in logs:
        if log.status == "error":
            message = log.error.message if log.error else "the task failed"
            failures[log.eval.task] = (
                redact(message.strip().splitlines()[-1][:500]) or "the task failed"
            )
    return failures


# ---- reading a finished sample -------------------------------------------------------


def read_sample(
    sample: EvalSample, log_file: str | None = None, *, logprob_tokens: int = 8
) -> SampleResult:
    """The plain values of a finished sample that a stage turns into a store row."""
    events = [event for event in sample.events if isinstance(event, ModelEvent)]
    error = redact(_error_message(sample, events))
    skipped = (
        bool(sample.metadata.get(NO_CALL)) or _cancelled(sample) or _stopped(sample)
    )
    return _result(
        sample.metadata,
        sample.output,
        events,
        error=error,
        uuid=sample.uuid,
        log_file=log_file,
        logprob_tokens=logprob_tokens,
        skipped=skipped,
        total_time=sample.total_time,
    )


def read_state(
    state: TaskState, log_file: str | None = None, *, logprob_tokens: int = 8
) -> SampleResult:
    """The same values from a running sample whose calls have just returned without
    error."""
    events = [event for event in transcript().events if isinstance(event, ModelEvent)]
    return _result(
        state.metadata,
        state.output,
        events,
        error=None,
        uuid=state.uuid,
        log_file=log_file,
        logprob_tokens=logprob_tokens,
        skipped=False,
        total_time=None,
    )


def _result(
    metadata: Any,
    output: ModelOutput,
    events: list[ModelEvent],
    *,
    error: str | None,
    uuid: str | None,
    log_file: str | None,
    logprob_tokens: int,
    skipped: bool,
    total_time: float | None,
) -> SampleResult:
    last = events[-1] if events else None
    has_output = bool(output.choices) and error is None
    usage = (
        output.usage
        if output.usage is not None
        else (last.output.usage if last else None)
    )
    return SampleResult(
        metadata=metadata,
        completion=output.completion if has_output else None,
        stop_reason=str(output.stop_reason) if has_output else None,
        error=error,
        usage=_usage(usage),
        cache_hit=bool(last is not None and last.cache == "read"),
        latency_s=_latency(output, last, total_time),
        effective_config=last.config.model_dump(exclude_none=True, exclude={"cache"})
        if last
        else {},
        uuid=uuid,
        log_file=log_file,
        logprobs=_logprobs(output, logprob_tokens) if has_output else None,
        skipped=skipped,
        calls=tuple(
            (str(event.model), _usage(event.output.usage), event.cache == "read")
            for event in events
        ),
        score=metadata.get(VERDICT),
    )


def _logprobs(output: ModelOutput, tokens: int) -> list[dict[str, Any]] | None:
    """The first `tokens` generated tokens' logprobs with their top alternatives;
    None when the provider sent none."""
    logprobs = output.choices[0].logprobs
    if logprobs is None or not logprobs.content:
        return None
    return [
        {
            "token": lp.token,
            "logprob": lp.logprob,
            "top": [
                {"token": top.token, "logprob": top.logprob}
                for top in lp.top_logprobs or []
            ],
        }
        for lp in logprobs.content[:tokens]
    ]


def _cancelled(sample: EvalSample) -> bool:
    """Cut off by Ctrl-C mid-call: not a provider failure, so its cell stays missing
    rather than errored."""
    return sample.error is not None and sample.error.message.startswith(
        "CancelledError"
    )


def _stopped(sample: EvalSample) -> bool:
    """Refused its call because the command was told to stop (see
    _Journaling.on_before_model_generate)."""
    return sample.limit is not None and sample.limit.type == "operator"


def _error_message(sample: EvalSample, events: list[ModelEvent]) -> str | None:
    """The provider's own message (the last model event's error), not inspect's opaque
    retry wrapper.

    An attempt cut off by attempt_timeout while the SDK waited to retry a refusal says
    only "AttemptTimeoutError"; the provider's last refusal (say "429 Too Many
    Requests") goes first then.
    """
    refusal = _last_refusal.pop(sample.uuid, None) if sample.uuid else None
    if sample.error is None:
        return None
    message = next(
        (event.error for event in reversed(events) if event.error), sample.error.message
    )
    if refusal and message.startswith("AttemptTimeoutError"):
        return f"{refusal} (after attempt timeout: {message})"
    return message


# ---- the provider's last HTTP refusal per sample, from inspect's HTTP log ------------

_HTTP_LOGGER = "inspect_ai.model._providers.util.hooks"
_HTTP_STATUS = re.compile(r'"HTTP/[\d.]+ (\d{3}) ?([^"]*)"')
_last_refusal: dict[str, str] = {}
"""Sample uuid -> the status line of its last refused HTTP request, while an eval
runs."""


class _RefusalRecorder(logging.Handler):
    """Reads inspect's per-response HTTP log lines (status and reason) into
    _last_refusal."""

    def emit(self, record: logging.LogRecord) -> None:
        active = sample_active()
        match = _HTTP_STATUS.search(record.getMessage()) if active is not None else None
        if active is None or match is None or active.sample_uuid is None:
            return
        status = int(match.group(1))
        if status >= 400:
            _last_refusal[active.sample_uuid] = f"{status} {match.group(2)}".strip()
        else:
            _last_refusal.pop(active.sample_uuid, None)


@contextlib.contextmanager
def _recording_refusals() -> Iterator[None]:
    logger, recorder = (
        logging.getLogger(_HTTP_LOGGER),
        _RefusalRecorder(level=HTTP_LOG_LEVEL),
    )
    logger.addHandler(recorder)
    try:
        yield
    finally:
        logger.removeHandler(recorder)
        _last_refusal.clear()


def _usage(usage: Any) -> dict[str, int | None]:
    if usage is None:
        return dict.fromkeys(
            (
                "input_tokens",
                "output_tokens",
                "total_tokens",
                "cache_read_tokens",
                "cache_write_tokens",
                "reasoning_tokens",
            )
        )
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "cache_read_tokens": usage.input_tokens_cache_read,
        "cache_write_tokens": usage.input_tokens_cache_write,
        "reasoning_tokens": usage.reasoning_tokens,
    }


def _latency(
    output: ModelOutput, last: ModelEvent | None, total_time: float | None
) -> float | None:
    if output.time is not None:
        return float(output.time)
    if last is not None and last.working_time is not None:
        return float(last.working_time)
    return total_time


def check_providers(models: list[str]) -> None:
    """A ConfigError naming every model whose provider inspect does not know, before
    anything is written.

    Matched as inspect's `get_model` matches providers: by the registered provider's
    unqualified name.
    """
    import inspect_ai.model  # noqa: F401 - registers inspect's own providers
    from inspect_ai._util.entrypoints import ensure_entry_points
    from inspect_ai._util.registry import registry_find, registry_unqualified_name

    from . import _registry  # noqa: F401 - itemeval's own offline provider, whatever the entry points say

    ensure_entry_points()  # providers of installed packages
    known = {
        registry_unqualified_name(info)
        for info in registry_find(lambda info: info.type == "modelapi")
    }
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
