"""The judge's reply contract: the format suffix appended to every rubric and the
strict parse of its reply (README "Graders")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

from ..hashing import canonical_json
from .criteria import SCORE_LIMIT, read_criteria
from .reply_objects import RawNumber, first_object, objects_with, plain

FORMAT_SUFFIX_VERSION = "1"
"""Part of every judge condition's identity: bump it whenever FORMAT_SUFFIX changes."""

# The judge's prompt, word for word: FORMAT_SUFFIX_VERSION names this exact text.
FORMAT_SUFFIX = (
    "## How to reply\n"
    "\n"
    "Give your assessment first. Then end your reply with a fenced JSON block, "
    "and write nothing after it:\n"
    "\n"
    "```json\n"
    '{"score": <number>, "reasoning": "<one or two sentences explaining the score>"}\n'
    "```\n"
    "\n"
    "- `score` is a bare JSON number on the scale the rubric defines: "
    "no quotes, units or fractions.\n"
    "- `reasoning` is a JSON string: escape double quotes and backslashes inside it.\n"
)


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


def quoted_objects(solution: str) -> list[str]:
    """The JSON objects with a `score` key in a solution, as canonical JSON text.

    A judge quoting one of these from the answer it grades has not given a verdict
    (README "Graders"): a solution must never grade itself. Only objects with a
    `score` could be taken for a verdict, so only those are kept.
    """
    return objects_with("score", solution)


# --- reading the score
# --------------------------------------------------------------------------

_NUMERIC_STRING = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_NON_FINITE_STRING = re.compile(r"[-+]?(?:nan|inf|infinity)", re.IGNORECASE)


def _json_text(value: Any) -> str:
    return (
        str(value)
        if isinstance(value, RawNumber)
        else json.dumps(plain(value), ensure_ascii=False)
    )


def _score_value(value: Any) -> tuple[float | None, str | None]:
    """(score, None) or (None, failure code).

    Numbers and numeric strings ("7", " 8.5 ") are scores; booleans, null, lists,
    objects and other strings ("7/10", "high") are `score_not_numeric`; NaN, Infinity
    and "inf" are `score_not_finite`; numbers beyond ±SCORE_LIMIT (-1e308, 1e999, a
    5,000-digit integer) are `score_out_of_range`, their text kept in `score_raw`.
    """
    if isinstance(value, RawNumber):
        text = str(value)
    elif isinstance(value, str):
        text = value.strip()
        if not _NUMERIC_STRING.fullmatch(text) and not _NON_FINITE_STRING.fullmatch(
            text
        ):
            return None, "score_not_numeric"
    else:
        return None, "score_not_numeric"
    if _NON_FINITE_STRING.fullmatch(text):
        return None, "score_not_finite"
    number = float(text)  # a numeric literal: too large reads as inf, never raises
    return (
        (number, None) if abs(number) <= SCORE_LIMIT else (None, "score_out_of_range")
    )


def _reasoning(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        # str() also unwraps a numeric reasoning
        return None if value is None else str(value)
    return _json_text(value)


def parse_judge_reply(text: str, quoted: Iterable[str] = ()) -> JudgeParse:
    """The score and reasoning from a judge's reply, or why there are none.

    Candidates are read in `candidates` order; the first that parses as a JSON object
    with a top-level `score` is the verdict, and its score must be a finite number. A
    candidate that is not valid JSON (an echo of the format line), has no `score`, or
    is one of the `quoted` objects of the solution being graded (`quoted_objects`) is
    passed over. When none is left, the failure is the one of the last candidate read.
    Tolerated beyond JSON: LaTeX backslashes in strings, trailing commas, literal
    newlines in strings. Not tolerated: single-quoted keys or strings, comments,
    unquoted keys (`invalid_json`).
    """
    obj, failure = first_object(
        text, "score", quoted, invalid="invalid_json", missing="no_score_in_json"
    )
    return _verdict(obj) if obj is not None else _failed(failure)


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
