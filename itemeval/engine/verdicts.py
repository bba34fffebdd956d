"""inspect's Score read into itemeval's ScoreResult: the value as inspect reads it
(letters and scalars as floats), inspect's own value kept as `raw`, and the failures
(no score, NaN, a list, an unreadable string) named."""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Score, value_to_float
from pydantic import BaseModel

from ..scorers.base import ScoreResult

_TO_FLOAT = value_to_float()
_LETTERS = {letter: _TO_FLOAT(letter) for letter in ("C", "I", "P", "N")}


def to_result(score: Score | None, solution: str) -> ScoreResult:
    """A ScoreResult keeping inspect's value (as `raw`), answer, explanation and
    metadata.

    Letters and other scalars become floats as inspect's `value_to_float` maps them (C
    1, P 0.5, I 0, N 0). A scorer that declines (None, or inspect's unscored NaN) and a
    list or dict value are failures, not 0.
    """
    if score is None:
        return ScoreResult(
            score=None,
            answer=None,
            parse_error="unscored",
            explanation="the scorer returned no score",
        )
    if (usual := _usual_result(score, solution)) is not None:
        return usual
    value = score.value
    common = _kept(score, solution)
    if isinstance(value, float) and math.isnan(value):
        return ScoreResult(score=None, parse_error="unscored", **common)
    if isinstance(value, dict):
        return _mapping_result(value, common)
    if isinstance(value, list):
        return ScoreResult(score=None, parse_error="score_not_scalar", **common)
    if isinstance(value, str) and not _is_known(value):
        return ScoreResult(score=None, parse_error="score_not_numeric", **common)
    return ScoreResult(score=_TO_FLOAT(value), **common)


def _usual_result(score: Score, solution: str) -> ScoreResult | None:
    """The usual case, quickly: a letter or a finite float (f1), with no metadata or
    reason; None otherwise."""
    if score.metadata is not None or reason_of(score):
        return None
    value = score.value
    if isinstance(value, str) and value in _LETTERS:
        return _plain_result(
            _LETTERS[value], value, score.answer, score.explanation, solution
        )
    if type(value) is float and math.isfinite(value):
        return _plain_result(
            value, repr(value), score.answer, score.explanation, solution
        )
    return None


def reason_of(score: Score) -> Any:
    """Why a score is abnormal, or None: `Score.reason` (inspect-ai 0.3.261 on), or the
    `unscored_reason` metadata key older releases recorded it under."""
    reason = getattr(score, "reason", None)
    return reason or (score.metadata or {}).get("unscored_reason")


def _kept(score: Score, solution: str) -> dict[str, Any]:
    """The answer, explanation, raw value and metadata a result keeps of a score."""
    explanation = None if score.explanation == solution else score.explanation
    # The grader's conversation (model-graded scorers) is in the .eval log already; the
    # rest is stored as JSON.
    meta = {
        key: _plain(value)
        for key, value in (score.metadata or {}).items()
        if key not in ("grading", "unscored_reason")
    }
    if reason := reason_of(score):
        meta["reason"] = str(reason)
    # the whole solution is in the solutions store
    answer = None if score.answer == solution else score.answer
    return {
        "answer": answer,
        "explanation": explanation,
        "raw": _raw(score.value),
        "metadata": meta or None,
    }


def _mapping_result(value: dict, common: dict[str, Any]) -> ScoreResult:
    """A score with several named values: each kept as a criterion, the score is
    the declared total (`score`/`total`) or their mean."""
    from ..scorers.criteria import mapping_score

    score, criteria = mapping_score(value)
    if score is None:
        return ScoreResult(score=None, parse_error="criterion_not_numeric", **common)
    metadata = {**(common["metadata"] or {}), "criteria": criteria}
    return ScoreResult(score=score, **{**common, "metadata": metadata})


def _plain_result(
    number: float, raw: str, answer: str | None, explanation: str | None, solution: str
) -> ScoreResult:
    """A plain verdict; the whole solution as answer or explanation is not repeated
    (it is in the solutions store). Verdicts that say nothing but their value are
    shared: one object per value, not one per row."""
    answer = None if answer == solution else answer
    explanation = None if explanation == solution else explanation
    if answer is None and explanation is None:
        shared = _SHARED_RESULTS.get(raw)
        if shared is None:
            shared = ScoreResult(score=number, answer=None, raw=raw)
            # a user scorer's floats may take any value
            if len(_SHARED_RESULTS) < _SHARED_RESULTS_LIMIT:
                _SHARED_RESULTS[raw] = shared
        return shared
    return ScoreResult(score=number, answer=answer, explanation=explanation, raw=raw)


_SHARED_RESULTS: dict[str, ScoreResult] = {}
"""raw value -> its plain ScoreResult (frozen): the letters, and f1's values in steps
of 0.01."""
_SHARED_RESULTS_LIMIT = 1024


def _plain(value: Any) -> Any:
    """A JSON-able copy of a metadata value (pydantic models dumped, other objects as
    text)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _raw(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        import json

        return json.dumps(value, default=str)
    return repr(float(value)) if math.isfinite(value) else None


def _is_known(value: str) -> bool:
    """Whether inspect's value_to_float reads the string (it would otherwise log a
    warning and return 0)."""
    lowered = value.lower()
    if value in ("C", "I", "P", "N") or lowered in ("yes", "no", "true", "false"):
        return True
    try:
        return math.isfinite(float(value))
    except ValueError:
        return False
