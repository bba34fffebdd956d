"""A generate cell's paid reply journaled from the transport, as soon as its body is
read, before the SDK and inspect parse it (issue 49 case 4).

On a starved machine the path from a reply's last byte to its row was the SDK's and
inspect's parsing and inspect's bookkeeping, each waiting its turn on the busy event
loop: a SIGKILL up to 1.5 s after a reply arrived paid for it again. Here an httpx
response hook reads the body of each successful chat completion the running cell asked
for and hands the cell's row on from it, read as a batch output line is read
(engine/wire.py). inspect's own reading follows as before; a cell already handed on is
left alone, so the row is written once.

It also keeps a reply inspect cannot read: a usage count that is not a whole number
fails inspect's parsing (the call then ends in an error), but the row made here holds
the reply, charged at its worst case.

Only OpenAI chat completions are read here (OpenAI and every OpenAI-compatible
provider); other replies, and anything this cannot read, take inspect's path alone.
"""

from __future__ import annotations

import json
import time
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript

from ..outcomes import SampleResult
from ..plan.usage_check import CallText, reported_json
from .compat import sample_active
from .hooks import calling_state, hand_on_result, route_log_file, route_logprob_tokens
from .send_guard import http_clients
from .wire import read_reply

CHAT_PATH = "/chat/completions"
WIRE_USAGE = "itemeval_wire_usage"
"""Set on a cell's metadata when its row came from the transport: the counts charged,
which the spend cap settles with when inspect's own reading has none."""
_STARTED = "itemeval_started"


def capture(model: Any) -> Any:
    """Journal, from `model`'s transport, each generate cell's reply as it arrives;
    the same model back."""
    for client in http_clients(getattr(model, "api", None)):
        for kind, hook in (("request", _stamp), ("response", _on_response)):
            if hook not in client.event_hooks[kind]:
                client.event_hooks[kind].append(hook)
    return model


async def _stamp(request: Any) -> None:
    request.extensions[_STARTED] = time.monotonic()


async def _on_response(response: Any) -> None:
    state = calling_state()
    if state is None or not _is_chat_reply(response):
        return
    try:
        await response.aread()
        result = _result(state, response, json.loads(response.content))
    # never fail a call here: inspect reads the reply as before
    except Exception:  # noqa: BLE001 - the reason above
        return
    if result is not None:
        hand_on_result(state, result)
        state.metadata[WIRE_USAGE] = result.usage


def _is_chat_reply(response: Any) -> bool:
    request = response.request
    kind = response.headers.get("content-type", "")
    return (
        response.status_code == 200
        and request.method == "POST"
        and request.url.path.endswith(CHAT_PATH)
        and kind.startswith("application/json")
    )


def _result(state: Any, response: Any, body: Any) -> SampleResult | None:
    """The cell's result from a chat completion body; None for one this does not
    read as inspect would (no choices, several, content that is not one string)."""
    if not isinstance(body, dict) or body.get("object") != "chat.completion":
        return None
    choices = body.get("choices")
    if not isinstance(choices, list) or len(choices) != 1:
        return None
    message = choices[0].get("message") or {}
    if not isinstance(message.get("content"), str) or message.get("tool_calls"):
        return None
    sent = json.loads(response.request.content or b"{}")
    config = _pending_config(state)
    call = CallText(
        len(_sent_text(sent).encode("utf-8", errors="replace")),
        0,
        config.get("max_tokens"),
        sent_more=_sent_more(sent),
    )
    reply = read_reply(body, call, logprob_tokens=route_logprob_tokens())
    started = response.request.extensions.get(_STARTED)
    active = sample_active()
    return SampleResult(
        metadata=state.metadata,
        completion=reply.completion,
        stop_reason=reply.stop_reason,
        error=None,
        usage=reply.usage.usage,
        usage_reported=reported_json([reply.usage]),
        cache_hit=False,
        latency_s=time.monotonic() - started if started is not None else None,
        effective_config=config,
        uuid=state.uuid,
        log_file=route_log_file(active.eval_id if active is not None else None),
        logprobs=reply.logprobs,
        calls=((str(state.model), reply.usage.usage, False),),
    )


def _sent_text(body: dict[str, Any]) -> str:
    return "\n".join(
        message["content"] if isinstance(message.get("content"), str) else ""
        for message in body.get("messages") or []
    )


def _sent_more(body: dict[str, Any]) -> bool:
    """Whether the request sent more than text (an image, audio)."""
    return any(
        not isinstance(message.get("content"), (str, type(None)))
        for message in body.get("messages") or []
    )


def _pending_config(state: Any) -> dict[str, Any]:
    """The generate config inspect sent with the call (its pending model event's), as
    a row records it."""
    events = [e for e in transcript().events if isinstance(e, ModelEvent)]
    if not events:
        return {}
    return events[-1].config.model_dump(exclude_none=True, exclude={"cache"})
