"""The `numeric` scorer: the answer's final number equals the numeric target within
tolerances."""

from __future__ import annotations

import functools
import math
import re

from ..lazy import lazy_pattern
from .answer import Answer, find_answer, last_boxed
from .base import ScoreContext, ScoreResult, failed
from .closed_form import MARKER, PlusMinus, value_of
from .locale_numbers import plain_numbers, reply_locale
from .number_reading import Ambiguous, Reading, Unfinished, read_numbers
from .number_words import cjk_as_digits, words_as_digits
from .numbers import (
    NUMBER_MARKED,
    NUMBER_WHOLE,
    normalise_math,
    number_value,
    numbers_in,
)

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


def read_final_number(text: str) -> tuple[str, float] | None:
    """The final number of a reply's answer as (the text read, its value); the last
    `\\boxed{}` decides if any (see `read_answer_number`)."""
    answer = find_answer(text)
    reading = read_answer_number(
        answer.text, marked=answer.marked, locale=reply_locale(text)
    )
    return None if reading is None else (reading.raw, reading.value)


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
    r"|\bP\s*\(|wahrscheinlich|anteil|probabilit"
    r"|proporci|概率|比例|確率|割合",
    re.IGNORECASE,
)


# "**Answer: 12** … it could also be 13. I'd say 12 or 13."
_AFTERTHOUGHT = lazy_pattern(
    r"\b(?:could|might|may)\s+also\s+be\b|\bor\s+(?:maybe|possibly|perhaps)\b",
    re.IGNORECASE,
)


def _second_thought(solution: str, answer: Answer, value: float) -> bool:
    """Whether the reply, after its answer, says another number could be it."""
    tail = answer.after
    if tail is None:
        at = solution.rfind(answer.text) if answer.text else -1
        tail = solution[at + len(answer.text) :] if at >= 0 else ""
    hedge = _AFTERTHOUGHT.search(tail)
    if hedge is None:
        return False
    others = numbers_in(prepare(tail[hedge.start() :], None), NUMBER_WHOLE)
    return any(not math.isclose(n.value, value) for n in others)


def _close(value: float, expected: float, rel_tol: float, abs_tol: float) -> bool:
    return math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)


def _credited(
    reading: Reading, expected: float, context: ScoreContext, solution: str
) -> tuple[float, ...]:
    """The values the answer may be compared with: itself and its restatements; a
    percentage as its fraction (not as itself), and a fraction as its percentage
    against a target written as one, when the item or the reply is about a
    probability or a share."""
    values = (reading.value, *reading.same_as)
    if not _SHARE.search(context.input) and not _SHARE.search(solution):
        return values
    values += reading.as_share
    if reading.percent and 0 <= expected <= 1:
        return (reading.value / 100, *reading.same_as, *reading.as_share)
    if context.target.strip().endswith("%") and not reading.percent:
        values += tuple(v * 100 for v in values if 0 <= v <= 1)
    return values


_ROUNDED = lazy_pattern(r"-?\d*\.(\d{2,})")


def _rounds_to(exact: tuple[float, ...], target: str) -> bool:
    """Whether an exact answer (`√2`, `1/3`) rounds to a target written as its
    rounding with at least three significant digits ("1.4142", "0.3333")."""
    written = _ROUNDED.fullmatch(target.strip())
    if written is None or len(target.strip().lstrip("-0.").replace(".", "")) < 3:
        return False
    places = len(written[1])
    expected = float(target)
    return any(
        abs(value - expected) <= 0.5 * 10**-places * (1 + 1e-9) for value in exact
    )


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
    if _second_thought(solution, answer, found.value):
        return failed(
            "ambiguous_answer", answer.text, "the reply offers another number after it"
        )
    values = _credited(found, expected, context, solution)
    close = any(_close(value, expected, rel_tol, abs_tol) for value in values)
    close = close or _rounds_to(found.exact, context.target)
    return ScoreResult(
        score=1.0 if close else 0.0,
        answer=found.raw,
        explanation=f"read {found.value!r}, target {expected!r}",
    )
