"""The JSON objects in a judge's reply and the one itemeval reads as its verdict,
for pointwise (`score`) and pairwise (`winner`) judges alike."""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Iterable

# Pairs of ``` fences, with or without a language tag; the tag never contains a brace,
# so the object search below can look at the whole content between the fences.
_JSON_ESCAPES = frozenset('"\\/bfnrtu')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_TRAILING_COMMA_END = re.compile(r"\s*[}\]]")


def _brace_ends(text: str, start: int, stop: int) -> dict[int, int | None]:
    """For each `{` outside JSON strings scanned from `start`: the index after its `}`,
    or None.

    The scan ends when the `{` at `start` closes, or at `stop`; braces still open there
    never close. A brace's answer depends only on the text after it, so one scan settles
    every brace it passes.
    """
    ends: dict[int, int | None] = {}
    open_braces: list[int] = []
    in_string = escaped = False
    for index in range(start, stop):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            open_braces.append(index)
        elif char == "}":
            ends[open_braces.pop()] = index + 1
            if not open_braces:
                break
    ends.update(dict.fromkeys(open_braces))
    return ends


def object_spans(
    text: str, start: int = 0, stop: int | None = None
) -> list[tuple[int, int]]:
    """Balanced, non-overlapping `{...}` spans in `text[start:stop]`, left to right.

    A `{` that never closes (prose, a LaTeX `\\left\\{`, a reply cut off mid-object) is
    skipped, so a complete object after it is still found.
    """
    stop = len(text) if stop is None else stop
    spans: list[tuple[int, int]] = []
    known: dict[int, int | None] = {}
    index = text.find("{", start, stop)
    while index != -1:
        if index not in known:
            known.update(_brace_ends(text, index, stop))
        end = known[index]
        if end is None:
            index = text.find("{", index + 1, stop)
        else:
            spans.append((index, end))
            index = text.find("{", end, stop)
    return spans


def _is_json_escape(text: str, index: int) -> bool:
    """Whether the backslash at `index`, inside a JSON string, starts an escape JSON
    should read.

    Yes for `\\"`, `\\\\`, `\\/`, `\\n`, `\\uXXXX`, and `\\b \\f \\r \\t` when no letter
    follows. No for anything else, which is then kept as a literal backslash, so LaTeX
    such as `\\(`, `\\frac`, `\\times`, `\\beta`, `\\right` and `\\underline` reaches
    the reasoning as written. A tab before a word ("\\tName") is therefore read as a
    backslash and "tName": rare in judge prose, unlike LaTeX.
    """
    nxt = text[index + 1 : index + 2]
    if nxt == "u":
        return _HEX4.match(text, index + 2) is not None
    if nxt and nxt in "bfrt":
        return not text[index + 2 : index + 3].isalpha()
    return nxt != "" and nxt in _JSON_ESCAPES


def _tolerant_json(text: str) -> str:
    """The text with LaTeX backslashes in strings made literal and trailing commas
    dropped."""
    out: list[str] = []
    index, in_string = 0, False
    while index < len(text):
        char = text[index]
        if in_string and char == "\\":
            keep = _is_json_escape(text, index)
            out.append(text[index : index + 2] if keep else "\\\\")
            index += 2 if keep else 1
            continue
        if char == '"':
            in_string = not in_string
        elif (
            not in_string and char == "," and _TRAILING_COMMA_END.match(text, index + 1)
        ):
            char = ""  # a trailing comma: tolerated, the judge's intent is unambiguous
        out.append(char)
        index += 1
    return "".join(out)


def fits_int(digits: str) -> bool:
    """Whether int() reads this integer literal under Python's int-digit limit
    (`sys.get_int_max_str_digits()`, 0: no limit; before 3.10.7 there is none)."""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    return not limit or len(digits.lstrip("+-")) <= limit


class RawNumber(str):
    """A JSON number kept as the text the judge wrote, so `score_raw` is exact
    ("7.0", "1e999")."""


def load_object(span: str) -> dict[str, Any] | None:
    try:
        value = json.loads(
            _tolerant_json(span),
            # literal newlines inside strings are common in judge reasoning
            strict=False,
            parse_int=RawNumber,
            parse_float=RawNumber,
            parse_constant=RawNumber,
        )
    # RecursionError: absurdly deep nesting
    except (
        json.JSONDecodeError,
        RecursionError,
    ):
        return None
    return value if isinstance(value, dict) else None


_CANDIDATE = re.compile(r"""\{\s*(?:["'}]|[A-Za-z_]\w*\s*:)""")
"""How a JSON object (or a judge's failed attempt at one: single quotes, bare keys)
opens; `{1, 2}` does not."""
_FENCE = re.compile(r"```[ \t]*([A-Za-z][\w+-]*)?")


def _json_close(text: str, start: int) -> int | None:
    """Where the json (or untagged) fence whose content starts at `start` closes:
    the first ``` outside the JSON strings of the objects in it, so a reasoning
    string that quotes ``` does not end the block."""
    at = start
    while True:
        fence = text.find("```", at)
        if fence < 0:
            return None
        brace = text.find("{", at, fence)
        if brace < 0:
            return fence
        end = _brace_ends(text, brace, len(text)).get(brace)
        if end is None:
            return fence  # an object cut off: the fence still closes the block
        at = end


def _code_close(text: str, start: int) -> int | None:
    """Where a fence tagged with another language closes: the first ``` after its
    tag's line; None when it has no line or never closes (no fence, then)."""
    line_end = text.find("\n", start)
    if line_end < 0:
        return None
    fence = text.find("```", line_end)
    return None if fence < 0 else fence


def fences(text: str) -> list[tuple[int, int, int, int, bool]]:
    """The reply's fenced blocks, in order: (start, end, content start, content end,
    whether it may hold a verdict: untagged or json)."""
    blocks = []
    at = 0
    while (opening := _FENCE.search(text, at)) is not None:
        tag = (opening[1] or "").lower()
        is_json = tag in ("", "json", "jsonc")
        content = opening.end()
        close = (_json_close if is_json else _code_close)(text, content)
        if close is None:
            at = opening.end()
            continue
        blocks.append((opening.start(), close + 3, content, close, is_json))
        at = close + 3
    return blocks


def _blank_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _spans_in(text: str, start: int = 0, stop: int | None = None) -> list[str]:
    """The object-like spans of `text[start:stop]`: an unclosed one at the end first,
    then the complete ones last to first.

    An object the judge opened after its last complete one and never closed (a cut-off
    reply) is returned as the unclosed text, so it is read and fails to parse.
    """
    stop = len(text) if stop is None else stop
    spans = [
        span
        for span in object_spans(text, start, stop)
        if _CANDIDATE.match(text, span[0])
    ]
    after = spans[-1][1] if spans else start
    unclosed = _CANDIDATE.search(text, after, stop)
    tail = [text[unclosed.start() : stop]] if unclosed is not None else []
    return tail + [text[a:b] for a, b in reversed(spans)]


def candidates(text: str) -> list[str]:
    """The reply's candidate verdicts in the order they are read.

    Fenced blocks (untagged or json) last to first, then raw objects outside any fence
    last to first. Objects in a fence tagged with another language (```python) are code,
    never read. A json block ends at the first ``` outside its objects' strings.
    """
    blocks = fences(text)
    visible = _blank_spans(text, [(b[0], b[1]) for b in blocks if not b[4]])
    fenced: list[str] = []
    for _, _, start, end, is_json in blocks:
        if is_json:
            fenced = _spans_in(visible, start, end) + fenced
    raw = _spans_in(_blank_spans(visible, [(b[0], b[1]) for b in blocks]))
    return fenced + raw


def last_candidate(text: str) -> str | None:
    """The first candidate `candidates` reads, or None when the reply has none."""
    found = candidates(text)
    return found[0] if found else None


def objects_with(key: str, *texts: str) -> list[str]:
    """The JSON objects with a top-level `key` in the texts, as canonical JSON text
    (sorted, each once): what a judge quoting from an answer would copy."""
    found = []
    for text in texts:
        text = text or ""
        for start, end in object_spans(text):
            obj = load_object(text[start:end])
            if obj is not None and key in obj:
                found.append(_canonical(obj))
    return sorted(set(found))


def _canonical(obj: dict[str, Any]) -> str:
    """The object as JSON text, equal for equal values (10 and 10.0 alike)."""
    return json.dumps(_as_floats(plain(obj)), sort_keys=True, ensure_ascii=False)


def _as_floats(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, list):
        return [_as_floats(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_floats(item) for key, item in value.items()}
    return value


def plain(value: Any) -> Any:
    """The value with raw numbers turned back into numbers, for writing as JSON text."""
    if isinstance(value, RawNumber):
        if value[-1:].isalpha() or "." in value or "e" in value.lower():
            return float(value)
        # past Python's int-digit limit (4,300 by default) int() raises; the float
        # is inf, which still compares and writes as JSON, and the text stays in the
        # RawNumber
        return int(value) if fits_int(value) else float(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def first_object(
    text: str | None, key: str, quoted: Iterable[str], *, invalid: str, missing: str
) -> tuple[dict[str, Any] | None, str]:
    """the reading of a judge's reply, for pointwise and pairwise judges alike:
    (the first candidate, in `candidates` order, that parses as a JSON object with a
    top-level `key` and is none of the `quoted` objects, ""), else (None, the failure
    of the last candidate read: `invalid` when it was no JSON object, `missing` when
    it had no `key`; `no_json_object` when the reply has no candidate)."""
    excluded = set(quoted)
    failure = "no_json_object"
    for candidate in candidates(text or ""):
        obj = load_object(candidate)
        if obj is None:
            failure = invalid
        elif key not in obj:
            failure = missing
        elif _canonical(obj) not in excluded:
            return obj, ""
    return None, failure
