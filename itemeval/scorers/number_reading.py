"""Which number of an answer is its final number: asides, negations, comparisons and
equations set aside, hedges and unfinished sums refused, restatements of the same value
("3/5, or 60 %") kept together."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..lazy import lazy_pattern
from .closed_form import MARKER, last_closed_form
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
    closed = last_closed_form(side) if MARKER.search(side) else None
    if closed is not None:
        return Reading(side[closed[0] : closed[1]], closed[2])
    found = numbers_in(side, NUMBER_MARKED)
    if len(found) != 1 or re.search(r"[A-Za-z]{2,}|\d", side[found[0].end :]):
        return None
    return Reading(found[0].raw, found[0].value, found[0].percent)


def _closed_reading(text: str, numbers: list[Number]) -> Reading | None:
    """The last closed form (`5\\sqrt{2}`) when nothing is written after it; raises
    Ambiguous when another number is joined to it by a hedge."""
    closed = last_closed_form(text) if MARKER.search(text) else None
    if closed is None or (numbers and numbers[-1].end > closed[1]):
        return None
    start, end, value = closed
    before = text[:start]
    earlier = last_closed_form(before) if MARKER.search(before) else None
    prior_end = earlier[1] if earlier else None
    prior_value = earlier[2] if earlier else None
    plain = [n for n in numbers if n.end <= start]
    if plain and (prior_end is None or plain[-1].end > prior_end):
        prior_end, prior_value = plain[-1].end, plain[-1].value
    if prior_end is not None and prior_value is not None:
        if not math.isclose(prior_value, value) and joined_by_hedge(before[prior_end:]):
            raise Ambiguous(text[:end].strip())
    return Reading(text[start:end], value)


def _last_plain(text: str, numbers: list[Number], pattern: re.Pattern[str]) -> Reading:
    compared = _COMPARED.search(text)
    if compared is not None and numbers_in(text[: compared.start()], pattern):
        # the answer comes before a clause comparing it with other numbers
        text = text[: compared.start()]
        numbers = numbers_in(text, pattern)
    last = numbers[-1]
    same_as: tuple[float, ...] = ()
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
        approximate = _APPROXIMATE.search(between) is not None
        if not is_range and _same(previous, last, approximate):
            same_as = (previous.value,)
        elif previous.value != last.value and (
            is_range
            or joined_by_hedge(between)
            or _two_roots(text, previous.start, between)
        ):
            raise Ambiguous(text[previous.start : last.end])
    return Reading(last.raw, last.value, last.percent, same_as)


def _closed_before(text: str, reading: Reading) -> list[tuple[str, bool]]:
    """A closed form the final number only approximates: "3√2 ≈ 4.24"."""
    at = text.rfind(reading.raw)
    closed = last_closed_form(text[:at]) if at > 0 and MARKER.search(text) else None
    if closed is None or not re.fullmatch(r"\s*[=≈]\s*", text[closed[1] : at]):
        return []
    return [(text[closed[0] : closed[1]], "≈" in text[closed[1] : at])]


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
    reading = _closed_reading(text, numbers)
    if reading is None:
        if not numbers:
            return None
        reading = _last_plain(text, numbers, pattern)
    sides += _closed_before(text, reading)
    restated = tuple(
        side.value
        for side, approximate in (
            (_single(text_), approximate) for text_, approximate in sides
        )
        if side is not None and _same(side, reading, approximate)
    )
    if not restated:
        return reading
    return Reading(
        reading.raw, reading.value, reading.percent, reading.same_as + restated
    )
