"""A provider's token counts checked before they are charged: a count below zero, not
a whole number, or past what the call could have used is no count at all (issue 49:
`prompt_tokens: -10000000` turned a $1 cap off).

Such a call is charged as if nothing were known: every byte of what it sent a token,
and a reply of the larger of its `max_tokens` and its own length in bytes, which is
what the spend cap reserved for it, or more. The provider's own figures are kept
beside what was charged.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping

from .cost import DEFAULT_MAX_TOKENS, MESSAGE_OVERHEAD_TOKENS

COUNTS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)

ABSURD_FACTOR = 4
ABSURD_SLACK = 4096
"""A count past `ABSURD_FACTOR` times its bound plus `ABSURD_SLACK` tokens is not
believed. The bound of the reply's tokens is the larger of max_tokens and the reply's
bytes (hidden reasoning counts against max_tokens); of the input's, the bytes sent
(a token is at least one byte of text; the slack covers chat formatting and tools)."""


@dataclass(frozen=True)
class CallText:
    """What one call sent and got back, in the terms its usage is checked against:
    bytes of UTF-8 text."""

    sent_bytes: int
    reply_bytes: int
    max_tokens: int | None
    sent_more: bool = False
    """It sent more than text (images, audio): its input has no bound in bytes."""

    @classmethod
    def of(
        cls, sent: str, reply: str, max_tokens: int | None, *, more: bool = False
    ) -> CallText:
        return cls(_bytes(sent), _bytes(reply), max_tokens, more)


@dataclass(frozen=True)
class Checked:
    """The counts to charge and store, and the provider's own when they were not
    taken (with why)."""

    usage: dict[str, int | None]
    reported: dict[str, Any] | None = None
    reason: str | None = None


def check_usage(usage: Mapping[str, Any] | None, call: CallText) -> Checked:
    """`usage` as reported when every count is believable, else the worst case of
    `call` with the report kept."""
    counts = dict.fromkeys(COUNTS) | dict(usage or {})
    reason = implausible(counts, call)
    if reason is None:
        return Checked({name: counts[name] for name in COUNTS})
    return Checked(worst_case(call), reported=dict(counts), reason=reason)


def implausible(counts: Mapping[str, Any], call: CallText) -> str | None:
    """Why these counts cannot be what the call used; None when they can."""
    for name in COUNTS:
        value = counts.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{name} {value!r} is not a number"
        if isinstance(value, float) and not (
            math.isfinite(value) and value.is_integer()
        ):
            return f"{name} {value!r} is not a whole number"
        if value < 0:
            return f"{name} {int(value)} is below 0"
    reply_bound = max(call.max_tokens or DEFAULT_MAX_TOKENS, call.reply_bytes)
    bounds = {"output_tokens": reply_bound, "reasoning_tokens": reply_bound}
    if not call.sent_more:
        bounds["input_tokens"] = call.sent_bytes
    for name, bound in bounds.items():
        value = counts.get(name)
        if value is not None and value > ABSURD_FACTOR * bound + ABSURD_SLACK:
            return f"{name} {int(value)} is past what the call could use (~{bound})"
    return None


def worst_case(call: CallText) -> dict[str, int | None]:
    """The counts of the spend cap's worst case: each byte sent a token, and a reply
    of max_tokens or of its own bytes, whichever is larger."""
    sent = call.sent_bytes + MESSAGE_OVERHEAD_TOKENS
    reply = max(call.max_tokens or DEFAULT_MAX_TOKENS, call.reply_bytes)
    return {
        "input_tokens": sent,
        "output_tokens": reply,
        "total_tokens": sent + reply,
        "cache_read_tokens": None,
        "cache_write_tokens": None,
        "reasoning_tokens": None,
    }


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", errors="replace"))


def reported_json(checked: list[Checked]) -> str | None:
    """The provider's counts of the calls whose counts were not taken, with why, as
    the stores' `usage_reported` keeps them; None when every call's were taken."""
    doubted = [
        {**{k: _plain(v) for k, v in (c.reported or {}).items()}, "why": c.reason}
        for c in checked
        if c.reason is not None
    ]
    return json.dumps(doubted, sort_keys=True) if doubted else None


def _plain(value: Any) -> Any:
    """A reported value JSON can hold as it was: NaN and infinities as text."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
