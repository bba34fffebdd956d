"""An answer given as a JSON object: `{"answer": "D"}`, fenced or not, with other keys
beside it."""

from __future__ import annotations

import re

from ..lazy import lazy_pattern
from .reply_objects import load_object, object_spans

ANSWER_KEYS = (
    "answer",
    "final_answer",
    "finalanswer",
    "correct_answer",
    "choice",
    "selected_option",
    "selected",
    "option",
    "correct_option",
    "letter",
)
"""The keys an answer is given under, compared without case; the first present
wins."""

# {'answer': 'B'}: a Python dict a model printed, not JSON
_QUOTED_PAIR = lazy_pattern(
    r"""['"](?P<key>[A-Za-z_]+)['"]\s*:\s*['"](?P<value>[^'"\n]{1,200})['"]"""
)
_HINT = lazy_pattern(r"answer|choice|option|selected|letter", re.IGNORECASE)


def _value_text(value: object) -> str | None:
    """The answer as text: a list of several is joined by "and" (a hedge)."""
    if isinstance(value, bool) or value is None or isinstance(value, dict):
        return None
    if isinstance(value, list):
        parts = [_value_text(item) for item in value]
        kept = [part for part in parts if part]
        return " and ".join(kept) if kept and len(kept) == len(parts) else None
    return str(value).strip() or None


def _from_span(span: str) -> str | None:
    obj = load_object(span)
    if obj is not None:
        keys = {key.casefold(): key for key in obj if isinstance(key, str)}
        for wanted in ANSWER_KEYS:
            if wanted in keys:
                return _value_text(obj[keys[wanted]])
        return None
    pairs = {m["key"].casefold(): m["value"] for m in _QUOTED_PAIR.finditer(span)}
    return next((pairs[key].strip() for key in ANSWER_KEYS if key in pairs), None)


def json_answer(reply: str) -> tuple[int, str] | None:
    """(where the last object with an answer key starts, its answer as text), or
    None when the reply has none."""
    if "{" not in reply or _HINT.search(reply) is None:
        return None
    for start, end in reversed(object_spans(reply)):
        text = _from_span(reply[start:end])
        if text is not None:
            return start, text
    return None
