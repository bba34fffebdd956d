"""Which number of an answer is its final number: asides, negations, comparisons and
equations set aside, hedges and unfinished sums refused, restatements of the same value
("3/5, or 60 %") kept together."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from ..lazy import lazy_pattern
from .closed_form import MARKER, PlusMinus, last_closed_form
from .hedges import OR_WORDS, is_hedge, joined_by_hedge
from .numbers import NUMBER_MARKED, NUMBER_WHOLE, Number, numbers_in


class Ambiguous(Exception):
    """The answer offers more than one number (a hedge, a range, two answers)."""


class Unfinished(Exception):
    """The answer ends in an arithmetic expression that was never evaluated."""


@dataclass(frozen=True)
class Reading:
    """The final number of an answer."""

    raw: str
    """The text read."""
    value: float
    percent: bool = False
    """Written as a percentage."""
    same_as: tuple[float, ...] = ()
    """The same answer in the other forms the reply gives it: `1/6` of "1/6 ≈
    16.67%", `3√2` of "3√2 ≈ 4.24"."""
    as_share: tuple[float, ...] = ()
    """The fraction an equation turned into this percentage ("1/4 = 25%"): the
    same answer only where the item is about a share."""
    exact: tuple[float, ...] = ()
    """The values written exactly (a fraction, a root, pi), which a target rounded
    from them may be compared with at its own precision."""


_EXACT = lazy_pattern(r"/|\\frac|\\sqrt|√|∛|\\pi|π")


def _restated(reading: Reading, other: Reading | Number, *, equation: bool) -> Reading:
    """`reading` with `other`, the same value written another way, beside it."""
    exact = (other.value,) if _EXACT.search(other.raw) else ()
    if other.percent == reading.percent and math.isclose(other.value, reading.value):
        return replace(reading, exact=reading.exact + exact)  # the same, said twice
    if equation and other.percent != reading.percent:
        return replace(
            reading,
            as_share=reading.as_share + (other.value,),
            exact=reading.exact + exact,
        )
    return replace(
        reading, same_as=reading.same_as + (other.value,), exact=reading.exact + exact
    )


_NEGATED = lazy_pattern(
    r"(?:\b(?:not|rather\s+than|instead\s+of)\s+|(?:而不是|不是|并非)\s*)"
    r"[-−]?\$?\d[\d,.]*",
    re.IGNORECASE,
)
_ASIDE = lazy_pattern(r"\s\(([^()]*)\)")
_COMPARED = lazy_pattern(
    r"(?:[,;]|\s[-–—])\s*(?:(?:which|that)(?:\s+is|['’]s)\s+)?"
    r"(?:(?:down|up)\s+from\b|compared\s+(?:to|with)\b|versus\b|vs\.?\s"
    r"|(?:[-−]?\$?\d[\d,.]*%?\s*(?:[a-z]+\s+)?)?(?:more|less|fewer|greater|smaller"
    r"|higher|lower|bigger)\s+than\b"
    r"|[-−]?\d[\d,.]*\s+times\b).*\Z",
    re.IGNORECASE | re.DOTALL,
)
"""A clause after the answer that relates it to other numbers: "40 marbles, 2 fewer
than the 42 needed", "41, which is 1 less than 42", "12 - that's 3 more than 9"."""
_OPERATOR_ONLY = lazy_pattern(r"\s*[-+*/×÷]\s*")
_ROOTS = lazy_pattern(
    r"\b([a-z])(_?\d)?\s*[=≈]\s*-?\s*[\d.]+[^=≈\n]{0,12}?"
    rf"\b(?:{OR_WORDS}|and|und|et|y)\s+\1(?:_?\d)?\s*[=≈]\s*-?\s*\d",
    re.IGNORECASE,
)
_SAME_UNKNOWN = lazy_pattern(
    rf"\s*,?\s*(?:{OR_WORDS}|and|und|et|y)\s+([a-z])\s*=\s*", re.IGNORECASE
)
_APPROXIMATE = lazy_pattern(r"≈|~|\babout\b|\bapprox", re.IGNORECASE)


def _two_roots(text: str, previous_start: int, between: str) -> bool:
    """Whether text is like "x = 4 or x = -4": two values of one unknown (not
    "3x = 15 and x = 5", a derivation)."""
    joined = _SAME_UNKNOWN.fullmatch(between)
    return (
        joined is not None
        and re.search(rf"\b{joined[1]}\s*=\s*$", text[:previous_start]) is not None
    )


def _decimals(raw: str) -> int:
    digits = re.search(r"\.(\d+)", raw)
    return len(digits[1]) if digits else 0


def _same(first: Reading | Number, later: Reading | Number, approximate: bool) -> bool:
    """Whether two numbers are one value written twice: equal, one the other's
    percentage, or (after "≈") equal to the later one's last digit."""
    a = first.value / 100 if first.percent and not later.percent else first.value
    b = later.value / 100 if later.percent and not first.percent else later.value
    if math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12):
        return True
    scale = 100 if later.percent and not first.percent else 1
    step = 0.5 * 10 ** -_decimals(later.raw) / scale
    return approximate and abs(a - b) <= step * (1 + 1e-9)


def _restates(aside: str, main: str) -> bool:
    """Whether an aside with "or" only restates the answer: "3/5 (or 60 %)"."""
    inside, before = numbers_in(aside, NUMBER_WHOLE), numbers_in(main, NUMBER_WHOLE)
    return len(inside) == 1 and bool(before) and _same(before[-1], inside[0], False)


def _focus(text: str) -> tuple[str, list[tuple[str, bool]]]:
    """A marked answer without what cannot be it (asides in brackets, "not 48"), as
    (the right side of its last equation, the earlier sides with whether each is
    followed by "≈")."""
    for aside in _ASIDE.finditer(text):
        if is_hedge(aside[1]) and not _restates(aside[1], text[: aside.start()]):
            raise Ambiguous(aside.group(0).strip())
    text = _NEGATED.sub(" ", _ASIDE.sub(" ", text))
    if _ROOTS.search(text):
        raise Ambiguous(text.strip())
    pieces = re.split(r"([=≈])", text)
    sides = [(pieces[i], pieces[i + 1] == "≈") for i in range(0, len(pieces) - 1, 2)]
    return pieces[-1], sides


def _single(side: str) -> Reading | None:
    """The one number a side of an equation is, or None ("x", "24 - 6")."""
    closed = _earlier_closed_form(side)
    if closed is not None:
        return Reading(side[closed[0] : closed[1]], closed[2])
    found = numbers_in(side, NUMBER_MARKED)
    if len(found) != 1 or re.search(r"[A-Za-z]{2,}|\d", side[found[0].end :]):
        return None
    return Reading(found[0].raw, found[0].value, found[0].percent)


def _earlier_closed_form(text: str) -> tuple[int, int, float] | None:
    """The last closed form of what comes before the answer; a "±" there is a step
    ("x = ±√5; … the positive one, x = √5")."""
    try:
        return last_closed_form(text) if MARKER.search(text) else None
    except PlusMinus:
        return None


def _closed_reading(text: str, numbers: list[Number]) -> Reading | None:
    """The last closed form (`5\\sqrt{2}`) when nothing is written after it; raises
    Ambiguous when another number is joined to it by a hedge."""
    closed = last_closed_form(text) if MARKER.search(text) else None
    if closed is None or (numbers and numbers[-1].end > closed[1]):
        return None
    start, end, value = closed
    before = text[:start]
    earlier = _earlier_closed_form(before)
    prior_end = earlier[1] if earlier else None
    prior_value = earlier[2] if earlier else None
    plain = [n for n in numbers if n.end <= start]
    if plain and (prior_end is None or plain[-1].end > prior_end):
        prior_end, prior_value = plain[-1].end, plain[-1].value
    if prior_end is not None and prior_value is not None:
        if not math.isclose(prior_value, value) and joined_by_hedge(before[prior_end:]):
            raise Ambiguous(text[:end].strip())
    return Reading(text[start:end], value, exact=(value,))


def _last_plain(text: str, numbers: list[Number], pattern: re.Pattern[str]) -> Reading:
    compared = _COMPARED.search(text)
    if compared is not None and numbers_in(text[: compared.start()], pattern):
        # the answer comes before a clause comparing it with other numbers
        text = text[: compared.start()]
        numbers = numbers_in(text, pattern)
    last = numbers[-1]
    exact = (last.value,) if _EXACT.search(last.raw) else ()
    reading = Reading(last.raw, last.value, last.percent, exact=exact)
    if len(numbers) > 1:
        previous = numbers[-2]
        between = text[previous.end : last.start]
        if previous.percent:  # "30% or 40%": the sign belongs to the number
            between = re.sub(r"^\s*(?:%|percent|per\s+cent)", "", between)
        # "40-42"; a spaced "24 - 6" is a subtraction
        is_range = between in ("-", "–", "—")
        if (
            not is_range
            and _OPERATOR_ONLY.fullmatch(between)
            and not text[last.end :].strip(" .!?*_$\n%")
        ):
            raise Unfinished(text[previous.start : last.end])
        # "12 girls or 16 girls": the unit said twice still joins two numbers
        unit = re.match(r"\s*([^\W\d_]+)", text[last.end :])
        if unit and re.match(rf"\s*{re.escape(unit[1])}\b", between):
            between = between.replace(unit[1], " ", 1)
        approximate = _APPROXIMATE.search(between) is not None
        if not is_range and _same(previous, last, approximate):
            return _restated(reading, previous, equation="=" in between)
        if previous.value != last.value and (
            is_range
            or joined_by_hedge(between)
            or _two_roots(text, previous.start, between)
        ):
            raise Ambiguous(text[previous.start : last.end])
    return reading


def _closed_before(text: str, reading: Reading) -> list[tuple[str, bool]]:
    """A closed form the final number only approximates: "3√2 ≈ 4.24"."""
    at = text.rfind(reading.raw)
    closed = _earlier_closed_form(text[:at]) if at > 0 else None
    if closed is None or not re.fullmatch(r"\s*[=≈]\s*", text[closed[1] : at]):
        return []
    return [(text[closed[0] : closed[1]], "≈" in text[closed[1] : at])]


_GIVEN = lazy_pattern(r"\b(?:the|these|those)\s+$", re.IGNORECASE)
# what names a given after its number: a noun ("the 2 cakes"), not a hedge ("the 12
# or 13")
_NOUN_AFTER = lazy_pattern(
    r"\s+(?!(?:or|and|to|nor|plus|minus|times)\b)[^\W\d_]{2,}", re.IGNORECASE
)


def _without_givens(text: str, numbers: list[Number]) -> list[Number]:
    """A whole reply's numbers without the ones it names as givens ("for the 2
    cakes", "each of the 4 friends"), when another is left."""
    kept = [
        n
        for n in numbers
        if not _GIVEN.search(text[max(0, n.start - 12) : n.start])
        or not _NOUN_AFTER.match(text, n.end)
    ]
    return kept if kept else numbers


def read_numbers(text: str, *, marked: bool) -> Reading | None:
    """The final number of an answer already in plain digits, or None when there is
    none; raises Ambiguous on a hedge and Unfinished on a sum never evaluated."""
    sides: list[tuple[str, bool]] = []
    if marked:
        text, sides = _focus(text)
    else:
        text = _NEGATED.sub(" ", text)
    pattern = NUMBER_MARKED if marked else NUMBER_WHOLE
    numbers = numbers_in(text, pattern)
    if not marked:
        numbers = _without_givens(text, numbers)
    reading = _closed_reading(text, numbers)
    if reading is None:
        if not numbers:
            return None
        reading = _last_plain(text, numbers, pattern)
    sides += _closed_before(text, reading)
    for side_text, approximate in sides:
        side = _single(side_text)
        if side is not None and _same(side, reading, approximate):
            reading = _restated(reading, side, equation=True)
    return reading
