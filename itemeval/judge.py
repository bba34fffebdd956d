"""The judge's reply contract: the format suffix appended to every rubric and the
strict parse of its reply (README "Graders")."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable

FORMAT_SUFFIX_VERSION = "1"
"""Part of every judge condition's identity: bump it whenever FORMAT_SUFFIX changes."""

FORMAT_SUFFIX = """\
## How to reply

Give your assessment first. Then end your reply with a fenced JSON block, and write nothing after it:

```json
{"score": <number>, "reasoning": "<one or two sentences explaining the score>"}
```

- `score` is a bare JSON number on the scale the rubric defines: no quotes, units or fractions.
- `reasoning` is a JSON string: escape double quotes and backslashes inside it.
"""  # noqa: E501 (the judge's prompt, word for word: a rewrap would change every request)


def with_format_suffix(rendered_rubric: str) -> str:
    """A rendered rubric followed by the format suffix, separated by one blank line."""
    return f"{rendered_rubric.rstrip()}\n\n{FORMAT_SUFFIX}"


@dataclass(frozen=True)
class JudgeParse:
    """What was read from one judge reply; `score is None` exactly when `parse_error`
    is set."""

    score: float | None
    score_raw: str | None
    """The score value as JSON text, as the judge wrote it ("7", "\\"7\\"", "true",
    "NaN")."""
    reasoning: str | None
    parse_error: str | None
    """`no_json_object`, `invalid_json`, `no_score_in_json`, `score_not_numeric` or
    `score_not_finite`."""
    criteria: Any = None
    """The verdict's `criteria` value as the judge wrote it (rubrics with criteria)."""

    def __post_init__(self) -> None:
        if (self.score is None) != (self.parse_error is not None):
            raise ValueError(
                "JudgeParse needs a score or a parse_error, not both or "
                f"neither: {self}"
            )

    @property
    def parse_ok(self) -> bool:
        return self.parse_error is None


# --- finding JSON objects
# ---------------------------------------------------------------------

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


def _object_spans(
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


class _RawNumber(str):
    """A JSON number kept as the text the judge wrote, so `score_raw` is exact
    ("7.0", "1e999")."""


def _load_object(span: str) -> dict[str, Any] | None:
    try:
        value = json.loads(
            _tolerant_json(span),
            # literal newlines inside strings are common in judge reasoning
            strict=False,
            parse_int=_RawNumber,
            parse_float=_RawNumber,
            parse_constant=_RawNumber,
        )
    except (
        json.JSONDecodeError,
        RecursionError,
    ):  # RecursionError: absurdly deep nesting
        return None
    return value if isinstance(value, dict) else None


_CANDIDATE = re.compile(r"""\{\s*(?:["'}]|[A-Za-z_]\w*\s*:)""")
"""How a JSON object (or a judge's failed attempt at one: single quotes, bare keys)
opens; `{1, 2}` does not."""
_CODE_FENCE = re.compile(
    r"```[ \t]*(?!json\b|jsonc\b|JSON\b)[A-Za-z][\w+-]*[^\n]*\n.*?```", re.DOTALL
)


_JSON_FENCE = re.compile(r"```[ \t]*(?:jsonc?\b|JSON\b)?(.*?)```", re.DOTALL)
"""A fenced block that may hold a verdict: untagged or json (other tags blanked)."""


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    return pattern.sub(lambda match: " " * len(match.group(0)), text)


def _spans_in(text: str, start: int = 0, stop: int | None = None) -> list[str]:
    """The object-like spans of `text[start:stop]`: an unclosed one at the end first,
    then the complete ones last to first.

    An object the judge opened after its last complete one and never closed (a cut-off
    reply) is returned as the unclosed text, so it is read and fails to parse.
    """
    stop = len(text) if stop is None else stop
    spans = [
        span
        for span in _object_spans(text, start, stop)
        if _CANDIDATE.match(text, span[0])
    ]
    after = spans[-1][1] if spans else start
    unclosed = _CANDIDATE.search(text, after, stop)
    tail = [text[unclosed.start() : stop]] if unclosed is not None else []
    return tail + [text[a:b] for a, b in reversed(spans)]


def candidates(text: str) -> list[str]:
    """The reply's candidate verdicts in the order SPEC §15 reads them.

    Fenced blocks (untagged or json) last to first, then raw objects outside any fence
    last to first. Objects in a fence tagged with another language (```python) are code,
    never read.
    """
    visible = _blank(text, _CODE_FENCE)
    fenced: list[str] = []
    for match in _JSON_FENCE.finditer(visible):
        fenced = _spans_in(visible, match.start(1), match.end(1)) + fenced
    raw = _spans_in(_blank(visible, _JSON_FENCE))
    return fenced + raw


def last_candidate(text: str) -> str | None:
    """The first candidate `candidates` reads, or None when the reply has none."""
    found = candidates(text)
    return found[0] if found else None


def quoted_objects(solution: str) -> list[str]:
    """The JSON objects with a `score` key in a solution, as canonical JSON text.

    A judge quoting one of these from the answer it grades has not given a verdict
    (SPEC §15): a solution must never grade itself. Only objects with a `score` could
    be taken for a verdict, so only those are kept.
    """
    found = []
    text = solution or ""
    for start, end in _object_spans(text):
        obj = _load_object(text[start:end])
        if obj is not None and "score" in obj:
            found.append(_canonical(obj))
    return sorted(set(found))


def _canonical(obj: dict[str, Any]) -> str:
    """The object as JSON text, equal for equal values (10 and 10.0 alike)."""
    return json.dumps(_as_floats(_plain(obj)), sort_keys=True, ensure_ascii=False)


def _as_floats(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, list):
        return [_as_floats(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_floats(item) for key, item in value.items()}
    return value


# --- reading the score
# --------------------------------------------------------------------------

_NUMERIC_STRING = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_NON_FINITE_STRING = re.compile(r"[-+]?(?:nan|inf|infinity)", re.IGNORECASE)


def _plain(value: Any) -> Any:
    """The value with raw numbers turned back into numbers, for writing as JSON text."""
    if isinstance(value, _RawNumber):
        return (
            float(value)
            if value[-1:].isalpha() or "." in value or "e" in value.lower()
            else int(value)
        )
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _json_text(value: Any) -> str:
    return (
        str(value)
        if isinstance(value, _RawNumber)
        else json.dumps(_plain(value), ensure_ascii=False)
    )


def _score_value(value: Any) -> tuple[float | None, str | None]:
    """(score, None) or (None, failure code).

    Numbers and numeric strings ("7", " 8.5 ") are scores; booleans, null, lists,
    objects and other strings ("7/10", "high") are `score_not_numeric`; NaN, Infinity,
    "inf" and numbers too large for a float (1e999) are `score_not_finite`.
    """
    if isinstance(value, _RawNumber):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip()
        if _NON_FINITE_STRING.fullmatch(text):
            return None, "score_not_finite"
        if not _NUMERIC_STRING.fullmatch(text):
            return None, "score_not_numeric"
    else:
        return None, "score_not_numeric"
    try:
        number = float(text)
    except OverflowError:
        return None, "score_not_finite"
    return (number, None) if math.isfinite(number) else (None, "score_not_finite")


def _reasoning(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return (
            None if value is None else str(value)
        )  # str() also unwraps a numeric reasoning
    return _json_text(value)


def parse_judge_reply(text: str, quoted: Iterable[str] = ()) -> JudgeParse:
    """The score and reasoning from a judge's reply, or why there are none (SPEC §15).

    Candidates are read in `candidates` order; the first that parses as a JSON object
    with a top-level `score` is the verdict, and its score must be a finite number. A
    candidate that is not valid JSON (an echo of the format line), has no `score`, or
    is one of the `quoted` objects of the solution being graded (`quoted_objects`) is
    passed over. When none is left, the failure is the one of the last candidate read.
    Tolerated beyond JSON: LaTeX backslashes in strings, trailing commas, literal
    newlines in strings. Not tolerated: single-quoted keys or strings, comments,
    unquoted keys (`invalid_json`).
    """
    excluded = set(quoted)
    failure = "no_json_object"
    for candidate in candidates(text or ""):
        obj = _load_object(candidate)
        if obj is None:
            failure = "invalid_json"
        elif "score" not in obj:
            failure = "no_score_in_json"
        elif _canonical(obj) not in excluded:
            return _verdict(obj)
    return _failed(failure)


def _verdict(obj: dict[str, Any]) -> JudgeParse:
    score, error = _score_value(obj["score"])
    return JudgeParse(
        score=score,
        score_raw=_json_text(obj["score"]),
        reasoning=_reasoning(obj.get("reasoning")),
        parse_error=error,
        criteria=obj.get("criteria"),
    )


def _failed(code: str) -> JudgeParse:
    return JudgeParse(score=None, score_raw=None, reasoning=None, parse_error=code)


def judge_fields(
    text: str, quoted: Iterable[str] = (), criteria: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A judge reply's grade columns (score, score_raw, parse_ok, parse_error,
    reasoning, and score_metadata when its rubric names `criteria`): what grades.parquet
    stores and what the grade run's `.eval` log shows as the sample's score."""
    from .criteria import read_criteria
    from .hashing import canonical_json

    parsed = parse_judge_reply(text or "", quoted)
    fields: dict[str, Any] = {
        "score": parsed.score,
        "score_raw": parsed.score_raw,
        "parse_ok": parsed.parse_ok,
        "parse_error": parsed.parse_error,
        "reasoning": parsed.reasoning,
    }
    if criteria and parsed.parse_ok:
        values, failure = read_criteria(parsed.criteria, criteria)
        if failure is not None:
            fields.update(score=None, parse_ok=False, parse_error=failure)
        else:
            fields["score_metadata"] = canonical_json({"criteria": values})
    return fields
