"""A finished (or just-answered) inspect sample read into the plain values a stage
turns into a store row, with the provider's last HTTP refusal when its call failed."""

from __future__ import annotations

import contextlib
import logging
import re
from dataclasses import dataclass, replace
from typing import Any, Iterator

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalSample, transcript
from inspect_ai.model import ModelOutput
from inspect_ai.solver import TaskState

from ..outcomes import SampleResult
from ..plan.usage_check import CallText, Checked, check_usage, reported_json
from ..redact import redact
from .compat import HTTP_LOGGER, sample_active
from .log_scores import NO_CALL, VERDICT

# inspect's HTTP level (between DEBUG and INFO), at which it logs every provider
# response
HTTP_LOG_LEVEL = 15


def read_sample(
    sample: EvalSample, log_file: str | None = None, *, logprob_tokens: int = 8
) -> SampleResult:
    """The plain values of a finished sample that a stage turns into a store row."""
    events = [event for event in sample.events if isinstance(event, ModelEvent)]
    error = redact(_error_message(sample, events))
    skipped = (
        bool(sample.metadata.get(NO_CALL)) or _cancelled(sample) or _stopped(sample)
    )
    finished = _Finished(
        sample.metadata,
        sample.output,
        events,
        error=error,
        uuid=sample.uuid,
        skipped=skipped,
        total_time=sample.total_time,
    )
    result = _result(finished, log_file=log_file, logprob_tokens=logprob_tokens)
    if AGENT in (sample.metadata or {}):
        return _agent_result(result, sample, events)
    return result


def cut_off(calls: int, by_cap: bool) -> str:
    """The error of an agent cell stopped part way: what stopped it and that it runs
    again whole."""
    what = "the spend cap (budget.max_usd)" if by_cap else "an interrupt"
    return (
        f"stopped by {what} after {calls} paid call(s): an agent cannot resume "
        "mid-trajectory, so this cell runs again from its start"
    )


def usage_total(counts: list[dict[str, int | None]]) -> dict[str, int | None]:
    """Calls' token counts added up (None where no call reported one)."""
    total: dict[str, int | None] = dict.fromkeys(usage_counts(None), None)
    for each in counts:
        for name, value in each.items():
            if value is not None:
                total[name] = (total[name] or 0) + value
    return total


AGENT = "solver"
"""A cell's metadata key naming its solver when it is not one plain call."""


def _agent_result(
    result: SampleResult, sample: EvalSample, events: list[ModelEvent]
) -> SampleResult:
    """An agent cell's result: every call's tokens summed, its trajectory counted,
    the limit it hit (a finished row, with that as its stop reason). Cut off by the
    cap or an interrupt after paid calls, it is an errored row holding their cost
    (and runs again); with none, no row."""
    from .transcripts import trajectory

    paid = [event for event in events if event.cache != "read" and not event.error]
    usage = usage_total([event_usage(event).usage for event in paid])
    if result.skipped:
        if not paid:
            return result  # it made no call: no row, as a plain cell refused
        # its calls are paid: a row says so, and the cell runs again, from its start
        return replace(
            result,
            skipped=False,
            completion=None,
            stop_reason=None,
            error=cut_off(len(paid), bool(sample.metadata.get(NO_CALL))),
            usage=usage,
            cache_hit=False,
            trajectory=None,
        )
    limit = sample.limit.type if sample.limit is not None else None
    stop_reason = f"{limit}_limit" if limit else result.stop_reason
    completion = result.completion
    if limit and completion is None and sample.error is None:
        completion = ""  # the limit came before an answer
    return replace(
        result,
        usage=usage,
        cache_hit=bool(events) and all(e.cache == "read" for e in events),
        latency_s=sample.total_time,
        completion=completion,
        stop_reason=stop_reason,
        trajectory=trajectory(sample.messages),
        limit_hit=limit,
    )


def read_state(
    state: TaskState,
    log_file: str | None = None,
    *,
    logprob_tokens: int = 8,
    output: ModelOutput | None = None,
) -> SampleResult:
    """The same values from a running sample whose calls have just returned without
    error; `output` is the last call's when inspect has not yet put it in `state`."""
    events = [event for event in transcript().events if isinstance(event, ModelEvent)]
    finished = _Finished(
        state.metadata,
        state.output if output is None else output,
        events,
        error=None,
        uuid=state.uuid,
        skipped=False,
        total_time=None,
    )
    return _result(finished, log_file=log_file, logprob_tokens=logprob_tokens)


@dataclass(frozen=True)
class _Finished:
    """A sample as it ended, finished or just answered."""

    metadata: Any
    output: ModelOutput
    events: list[ModelEvent]
    error: str | None
    uuid: str | None
    skipped: bool
    total_time: float | None


def _result(
    finished: _Finished, *, log_file: str | None, logprob_tokens: int
) -> SampleResult:
    metadata, output, events = finished.metadata, finished.output, finished.events
    error, total_time = finished.error, finished.total_time
    last = events[-1] if events else None
    has_output = bool(output.choices) and error is None
    usage = (
        output.usage
        if output.usage is not None
        else (last.output.usage if last else None)
    )
    checked = [event_usage(event) for event in events]
    charged = check_usage(usage_counts(usage), _call_text(last, output)).usage
    return SampleResult(
        metadata=metadata,
        completion=output.completion if has_output else None,
        stop_reason=str(output.stop_reason) if has_output else None,
        error=error,
        usage=charged,
        usage_reported=reported_json(checked),
        cache_hit=bool(last is not None and last.cache == "read"),
        latency_s=_latency(output, last, total_time),
        effective_config=last.config.model_dump(exclude_none=True, exclude={"cache"})
        if last
        else {},
        uuid=finished.uuid,
        log_file=log_file,
        logprobs=_logprobs(output, logprob_tokens) if has_output else None,
        skipped=finished.skipped,
        calls=tuple(
            (str(event.model), usage.usage, event.cache == "read")
            for event, usage in zip(events, checked)
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
    hooks.Journaling.on_before_model_generate)."""
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
def recording_refusals() -> Iterator[None]:
    logger, recorder = (
        logging.getLogger(HTTP_LOGGER),
        _RefusalRecorder(level=HTTP_LOG_LEVEL),
    )
    logger.addHandler(recorder)
    try:
        yield
    finally:
        logger.removeHandler(recorder)
        _last_refusal.clear()


def event_usage(event: ModelEvent) -> Checked:
    """One call's token counts as charged: the provider's, unless they cannot be
    (plan/usage_check.py)."""
    return check_usage(
        usage_counts(event.output.usage), _call_text(event, event.output)
    )


def _call_text(event: ModelEvent | None, output: ModelOutput) -> CallText:
    if event is None:
        return CallText.of("", output.completion, None)
    sent = "\n".join(message.text for message in event.input)
    more = any(
        not isinstance(message.content, str)
        and any(part.type != "text" for part in message.content)
        for message in event.input
    )
    return CallText.of(sent, output.completion, event.config.max_tokens, more=more)


def usage_counts(usage: Any) -> dict[str, int | None]:
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
