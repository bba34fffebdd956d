"""The `numeric` scorer: the answer's final number equals the numeric target within
tolerances."""

from __future__ import annotations

import functools
import math
import re

from ..lazy import lazy_pattern
from .answer import find_answer, last_boxed
from .base import ScoreContext, ScoreResult, failed
from .closed_form import MARKER, PlusMinus, value_of
from .locale_numbers import plain_numbers, reply_locale
from .number_reading import Ambiguous, Reading, Unfinished, read_numbers
from .number_words import cjk_as_digits, words_as_digits
from .numbers import NUMBER_MARKED, normalise_math, number_value

__all__ = ["Ambiguous", "Unfinished", "numeric", "read_answer_number"]


def prepare(text: str, locale: str | None) -> str:
    """The answer in plain digits: LaTeX and Unicode spellings, the reply's locale,
    number words and Chinese numerals."""
    return cjk_as_digits(words_as_digits(plain_numbers(normalise_math(text), locale)))


def read_answer_number(
    text: str, *, marked: bool, locale: str | None = None
) -> Reading | None:
    """The final number of an answer (see `number_reading.read_numbers`), or None when
    there is none.

    Raises Ambiguous when the final number is joined to a different one by "or", "and",
    "to", a comma, a slash or a range dash, and Unfinished when it is the last operand
    of an unevaluated expression.
    """
    try:
        return read_numbers(prepare(text, locale), marked=marked)
    except PlusMinus as both:
        raise Ambiguous(str(both)) from None


def read_final_number(text: str) -> Reading | None:
    """The final number of a reply's answer (see `read_answer_number`); the last
    `\\boxed{}` decides if any."""
    answer = find_answer(text)
    return read_answer_number(
        answer.text, marked=answer.marked, locale=reply_locale(text)
    )


# an item's target is read once per solution graded against it
@functools.lru_cache(maxsize=4096)
def read_target_number(target: str) -> float | None:
    """The target as a number, when the whole target is one: "1,234", "$5", "-1/2",
    "50%", "\\frac{3}{4}", "5\\sqrt{2}", "\\pi/4"."""
    text = normalise_math(target).strip()
    boxed = last_boxed(text)
    if boxed is not None and text.startswith("\\"):
        text = boxed
    text = text.strip().strip("$").strip().rstrip(".").removesuffix("%").strip()
    negative = text.startswith("-")
    match = NUMBER_MARKED.fullmatch(text.removeprefix("-").strip())
    value = number_value(match) if match else None
    if value is None and (MARKER.search(text) or "^" in text):
        try:
            return value_of(text)
        except PlusMinus:
            return None
    return None if value is None else -value if negative else value


_SHARE = lazy_pattern(
    r"probab|chance|likel|\bodds\b|\bshare\b|proportion|fraction|\bratio\b"
    r"|\bpercent(?:age)?\s+of\b|%\s+of\b|\bP\s*\(|wahrscheinlich|anteil|probabilit"
    r"|proporci|概率|比例|確率|割合",
    re.IGNORECASE,
)


def _close(value: float, expected: float, rel_tol: float, abs_tol: float) -> bool:
    return math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)


def _credited(
    reading: Reading, expected: float, context: ScoreContext, solution: str
) -> tuple[float, ...]:
    """The values the answer may be compared with: itself and its restatements; a
    percentage as its fraction (and a fraction as its percentage, against a target
    written as one) when the item or the reply is about a probability or a share."""
    values = (reading.value, *reading.same_as)
    if not _SHARE.search(context.input) and not _SHARE.search(solution):
        return values
    if reading.percent and 0 <= expected <= 1:
        values += (reading.value / 100,)
    elif context.target.strip().endswith("%") and not reading.percent:
        values += tuple(v * 100 for v in values if 0 <= v <= 1)
    return values


def numeric(
    solution: str,
    context: ScoreContext,
    *,
    rel_tol: float = 1e-6,
    abs_tol: float = 1e-9,
) -> ScoreResult:
    """1.0 when the final number in the answer equals the numeric target within the
    tolerances."""
    expected = read_target_number(context.target)
    if expected is None:
        return failed(
            "target_not_numeric", None, f"the target {context.target!r} is not a number"
        )
    answer, locale = find_answer(solution), reply_locale(solution)
    try:
        found = read_answer_number(answer.text, marked=answer.marked, locale=locale)
        # "The answer is not obvious at first. … so 12."
        if found is None and answer.phrased:
            found = read_answer_number(solution, marked=False, locale=locale)
    except Ambiguous as hedge:
        return failed(
            "ambiguous_answer", str(hedge), "the answer offers more than one number"
        )
    except Unfinished as sum_:
        return failed(
            "unfinished_expression",
            str(sum_),
            "the answer ends in an expression it never evaluated",
        )
    if found is None:
        return failed("no_number_found", None, "no number found in the answer")
    values = _credited(found, expected, context, solution)
    close = any(_close(value, expected, rel_tol, abs_tol) for value in values)
    return ScoreResult(
        score=1.0 if close else 0.0,
        answer=found.raw,
        explanation=f"read {found.value!r}, target {expected!r}",
    )
