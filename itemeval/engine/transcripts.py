"""An agent's trajectory as compact text (README "Agents"): what a judge's
`{transcript}` reads and the `transcript` column holds; the whole of it stays in the
`.eval` log. Plus the counts a solution row records of it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

TRANSCRIPT_LIMIT = 8_000
"""Characters of a stored transcript: longer ones keep their start and end, the
middle cut with a note of how much."""
MESSAGE_LIMIT = 1_200
"""Characters of one message (or tool result) within it."""
ANSWER_TOOLS = frozenset({"submit"})
"""Tools that hand in the answer (react's) rather than do work: not counted as tool
calls."""


@dataclass(frozen=True)
class Trajectory:
    """What a solution row records of an agent's messages."""

    turns: int
    """The model's turns (assistant messages)."""
    tool_calls: int
    tools_used: list[str]
    transcript: str


def trajectory(messages: Sequence[Any]) -> Trajectory:
    """The counts and compact text of an inspect sample's messages."""
    calls = [
        call.function
        for message in messages
        if message.role == "assistant"
        for call in (getattr(message, "tool_calls", None) or [])
    ]
    work = [name for name in calls if name not in ANSWER_TOOLS]
    return Trajectory(
        turns=sum(1 for message in messages if message.role == "assistant"),
        tool_calls=len(work),
        tools_used=sorted(set(work)),
        transcript=render(messages),
    )


def render(messages: Sequence[Any], limit: int = TRANSCRIPT_LIMIT) -> str:
    """One line per message (system messages left out: the prompt is known), each
    tool call as `-> name(arguments)`; cut to `limit` characters."""
    lines: list[str] = []
    for message in messages:
        if message.role == "system":
            continue
        label = message.role
        if message.role == "tool":
            label = f"tool {getattr(message, 'function', '') or ''}".strip()
            error = getattr(message, "error", None)
            if error is not None:
                label += " error"
        lines.append(f"[{label}] {_cut(message.text.strip(), MESSAGE_LIMIT)}")
        for call in getattr(message, "tool_calls", None) or []:
            arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
            lines.append(f"  -> {call.function}({_cut(arguments, MESSAGE_LIMIT)})")
    return _cut("\n".join(lines), limit)


def _cut(text: str, limit: int) -> str:
    """`text`, or its start and end with the middle replaced by a note."""
    if len(text) <= limit:
        return text
    note = f" … [{len(text) - limit} characters cut] … "
    keep = max(limit - len(note), 0)
    head = keep * 2 // 3
    return text[:head] + note + text[len(text) - (keep - head) :]
