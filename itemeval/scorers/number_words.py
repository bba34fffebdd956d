"""Numbers written as words, in English ("seventeen", "two and a half", "negative
four") and in Chinese numerals ("二十四"), rewritten as digits."""

from __future__ import annotations

import re
from fractions import Fraction

from ..lazy import lazy_pattern

_UNITS = {
    word: n
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve "
        "thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    word: 10 * n
    for n, word in enumerate(
        "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
    )
    if n >= 2
}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_PARTS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "sixth": 6,
    "sixths": 6,
    "eighth": 8,
    "eighths": 8,
    "tenth": 10,
    "tenths": 10,
}
_CORE = "|".join(
    sorted([*_UNITS, *_TENS, *_SCALES, *_PARTS, "hundred", "dozen"], key=len)[::-1]
)
_RUN = lazy_pattern(
    rf"\b(?:(?:negative|minus)\s+)?(?:a\s+(?=dozen|hundred|thousand|million))?(?:{_CORE})"
    rf"(?:(?:[\s-]+(?:and|a|point))*[\s-]+(?:{_CORE}))*\b(?!['’-])",
    re.IGNORECASE,
)


def _cardinal(words: list[str]) -> int | None:
    """ "three hundred sixty five" → 365; None when the words are not one number
    ("seven and eight": "and" only follows "hundred" or "thousand")."""
    total = current = 0
    previous = ""
    for word in words:
        if word in _UNITS or word in _TENS:
            current += _UNITS.get(word, _TENS.get(word, 0))
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in _SCALES:
            total, current = total + (current or 1) * _SCALES[word], 0
        elif word != "and" or previous not in ("hundred", *_SCALES):
            return None
        previous = word
    return total + current if words else None


def _phrase_value(words: list[str]) -> Fraction | None:
    """The value of a run of number words, or None when it is not one number."""
    sign = -1 if words and words[0] in ("negative", "minus") else 1
    words = words[1:] if sign < 0 else words
    if len(words) >= 2 and words[-2] == "a" and words[-1] in ("half", "quarter"):
        rest = words[:-3] if words[-3:-2] == ["and"] else words[:-2]
        whole = _cardinal(rest)
        extra = Fraction(1, _PARTS[words[-1]])
        return None if whole is None else sign * (whole + extra)
    if words and words[-1] == "dozen":
        count = 1 if words[:-1] in ([], ["a"]) else _cardinal(words[:-1])
        return None if count is None else sign * Fraction(12 * count)
    if "point" in words:
        at = words.index("point")
        whole, digits = _cardinal(words[:at]), words[at + 1 :]
        if whole is None or not digits or any(_UNITS.get(d, 10) > 9 for d in digits):
            return None
        return sign * Fraction(f"{whole}." + "".join(str(_UNITS[d]) for d in digits))
    if len(words) >= 2 and words[-1] in _PARTS:
        numerator = _cardinal(words[:-1])
        return None if not numerator else sign * Fraction(numerator, _PARTS[words[-1]])
    value = _cardinal(words)
    return None if value is None else sign * Fraction(value)


def _digits(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def _words(text: str) -> list[str]:
    return [word for word in re.split(r"[\s-]+", text.lower()) if word]


def _rewrite(run: str, whole: bool) -> str:
    words = _words(run)
    if words[:1] == ["a"] and words[1:2] != ["dozen"]:
        words[0] = "one"  # "a thousand years"
    # a lone "one" is a pronoun ("the only one that works") unless it is the answer;
    # "1.5 million" is read with its digits
    if words == ["one"] and not whole or words[0] in (*_SCALES, "hundred"):
        return run
    if words == ["half"]:
        return "1/2"
    value = _phrase_value(words)
    if value is not None:
        return _digits(value)
    # "seventeen and eighteen": two numbers
    parts = re.split(r"(\s+and\s+)", run, flags=re.IGNORECASE)
    if len(parts) > 1:
        return "".join(
            part if index % 2 else _rewrite(part, whole)
            for index, part in enumerate(parts)
        )
    return run


# "the second half", "the other half": a half that is no number
_NOT_A_HALF = lazy_pattern(
    r"\b(?:the|first|second|other|top|bottom|back|front|latter|former)\s+$",
    re.IGNORECASE,
)


def words_as_digits(text: str) -> str:
    """`text` with each run of English number words as digits ("two and a half" →
    "5/2"); a lone "one" only when it is the whole text ("One."), a lone "half" as
    1/2 unless it is a part ("the second half")."""
    if not _RUN.search(text):
        return text
    whole = _RUN.fullmatch(text.strip(" \t\n*_`.!")) is not None

    def rewrite(match: re.Match[str]) -> str:
        if match[0].lower() == "half" and _NOT_A_HALF.search(text[: match.start()]):
            return match[0]
        return _rewrite(match[0], whole)

    return _RUN.sub(rewrite, text)


_CJK_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "兩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CJK_SMALL = {"十": 10, "百": 100, "千": 1000}
_CJK_LARGE = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_CJK_RUN = lazy_pattern(r"[零〇一二两兩三四五六七八九十百千万萬亿億]{2,}")


def _cjk_value(run: str) -> int | None:
    """ "二十四" → 24, "三百零五" → 305, "十七" → 17."""
    total = section = digit = 0
    for char in run:
        if char in _CJK_DIGITS:
            digit = _CJK_DIGITS[char]
        elif char in _CJK_SMALL:
            section += (digit or 1) * _CJK_SMALL[char]
            digit = 0
        else:
            total += (section + digit or 1) * _CJK_LARGE[char]
            section = digit = 0
    value = total + section + digit
    return value or None


def cjk_as_digits(text: str) -> str:
    """`text` with each run of two or more Chinese numerals as digits."""
    if not _CJK_RUN.search(text):
        return text
    return _CJK_RUN.sub(
        lambda m: str(v) if (v := _cjk_value(m[0])) is not None else m[0], text
    )
