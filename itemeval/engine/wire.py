"""The OpenAI chat-completions reply as a row reads it: its text, how it stopped, its
token counts (checked: plan/usage_check.py) and its logprobs. One reading for a batch's
output lines and for a live reply caught at the transport (engine/reply_capture.py), so
the two make the same row inspect's own reading makes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan.usage_check import CallText, Checked, check_usage

STOP_REASONS = {
    "stop": "stop",
    "length": "max_tokens",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
}
"""OpenAI's finish_reason as inspect's StopReason names it."""


@dataclass(frozen=True)
class WireReply:
    """One chat completion's first choice, read."""

    completion: str
    stop_reason: str
    usage: Checked
    logprobs: list[dict[str, Any]] | None


def read_reply(
    body: dict[str, Any], call: CallText, *, logprob_tokens: int
) -> WireReply:
    """The first choice of a chat completion body (whose text is a string)."""
    choice = (body.get("choices") or [{}])[0]
    text = (choice.get("message") or {}).get("content") or ""
    reply = len(text.encode("utf-8", errors="replace"))
    sized = CallText(call.sent_bytes, reply, call.max_tokens, call.sent_more)
    return WireReply(
        completion=text,
        stop_reason=STOP_REASONS.get(choice.get("finish_reason") or "", "unknown"),
        usage=check_usage(usage(body.get("usage")), sized),
        logprobs=_logprobs(choice.get("logprobs"), logprob_tokens),
    )


def usage(wire: dict[str, Any] | None) -> dict[str, Any]:
    """OpenAI's usage as a row's token columns, the way inspect counts them: input
    tokens exclude those read from or written to the provider's prompt cache. Values
    are passed on as they came (check_usage judges them)."""
    if not wire:
        names = ("input", "output", "total", "cache_read", "cache_write", "reasoning")
        return {f"{name}_tokens": None for name in names}
    details = wire.get("prompt_tokens_details")
    done = wire.get("completion_tokens_details")
    read = details.get("cached_tokens") if isinstance(details, dict) else None
    write = details.get("cache_write_tokens") if isinstance(details, dict) else None
    return {
        "input_tokens": _less(wire.get("prompt_tokens"), read, write),
        "output_tokens": wire.get("completion_tokens"),
        "total_tokens": wire.get("total_tokens"),
        "cache_read_tokens": read,
        "cache_write_tokens": write,
        "reasoning_tokens": done.get("reasoning_tokens")
        if isinstance(done, dict)
        else None,
    }


def _less(prompt: Any, *cached: Any) -> Any:
    """The prompt's tokens less those of the prompt cache; the prompt's value as it
    came when any is not a number."""
    parts = [prompt, *(c or 0 for c in cached)]
    if all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in parts):
        return parts[0] - sum(parts[1:])
    return prompt


def _logprobs(wire: dict[str, Any] | None, limit: int) -> list[dict[str, Any]] | None:
    """The first generated tokens' logprobs, in the shape a live row keeps."""
    tokens = (wire or {}).get("content")
    if not tokens:
        return None
    return [
        {
            "token": t["token"],
            "logprob": t["logprob"],
            "top": [
                {"token": a["token"], "logprob": a["logprob"]}
                for a in t.get("top_logprobs") or []
            ],
        }
        for t in tokens[:limit]
    ]
