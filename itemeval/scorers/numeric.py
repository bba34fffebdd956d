"""The `numeric` scorer: the answer's final number equals the numeric target within
tolerances."""

from __future__ import annotations

import functools
import math
import re

from ..lazy import lazy_pattern
from .answer import find_answer, is_hedge, joined_by_hedge, last_boxed
from .base import ScoreContext, ScoreResult, failed

# LaTeX spellings of things the number pattern reads in plain form: "1{,}234", "1\,234",
# "\$5", "3 \times 10^8".
_MATH_SPELLINGS = (
    ("{,}", ","),
    ("\\,", ""),
    ("\\!", ""),
    ("\\ ", " "),
    ("\\;", " "),
    ("\\$", "$"),
    ("\\%", "%"),
    ("\u2212", "-"),
    ("\\times", "×"),
    ("\\cdot", "×"),
    ("\\approx", "≈"),
    ("\\left", ""),
    ("\\right", ""),
    ("\\(", ""),
    ("\\)", ""),
    ("\\[", ""),
    ("\\]", ""),
)
_SUPERSCRIPT = lazy_pattern(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")
_TO_PLAIN = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_TEXT_COMMAND = lazy_pattern(
    r"\\(?:text|mathrm|textbf|mathbf|operatorname|mbox)\s*\{([^{}]*)\}"
)
# 2\frac{1}{2}
_LATEX_MIXED = lazy_pattern(
    r"(?<![\d.])(\d+)\s*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}"
)
_FRAC_SHORTHAND = lazy_pattern(
    r"\\([dt]?frac)\s*(?:(\d)|\{([^{}]*)\})\s*(?:(\d)|\{([^{}]*)\})"
)
# cm^2, s^{2}: a unit's exponent
_UNIT_POWER = lazy_pattern(r"(?<=[A-Za-z])\s*\^\s*(?:\{\s*-?\d+\s*\}|-?\d+)")
_DIGITS = r"(?:\d{1,3}(?:,\d{3})+(?!\d|,\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_NUMBER_PARTS = rf"""
    # not the tail of a word or of another number ("H2O", "v1.2"), not an exponent
    (?<![\w.^])
    \$?
    (?:
        \\[dt]?frac\{{(?P<fnum>[^{{}}]*)\}}\{{(?P<fden>[^{{}}]*)\}}
      | (?P<whole>\d+)[ ](?P<mnum>\d+)/(?P<mden>\d+)(?![\d/.])
      | (?P<mant>{_DIGITS})
        (?:
            (?P<exp>[eE][-+]?\d+)(?!\w)
          | \s*(?:×|\*|x)\s*10\s*\^\s*\{{?\s*(?P<pow>-?\d+)\s*\}}?
          | \s*\^\s*\{{?\s*(?P<power>-?\d+)\s*\}}?
          | /(?P<den>{_DIGITS})(?![\d/])
          SPACED
        )?
        (?:\s*(?P<scale>thousand|million|billion|trillion)\b)?
    )
"""
# "3 / 4" after an answer label is a fraction; at the end of a cut-off reply "180 / 2.5"
# is an unfinished sum.
_NUMBER_MARKED = lazy_pattern(
    _NUMBER_PARTS.replace("SPACED", r"| \s+/\s+(?P<sden>\d+)(?![\d/.])"), re.VERBOSE
)
_NUMBER_WHOLE = lazy_pattern(_NUMBER_PARTS.replace("SPACED", ""), re.VERBOSE)
_PLAIN = lazy_pattern(r"-?(?:\d+(?:\.\d*)?|\.\d+)")
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NEGATED = lazy_pattern(
    r"\b(?:not|rather\s+than|instead\s+of)\s+[-−]?\$?\d[\d,.]*", re.IGNORECASE
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
_WORDS = {
    word: n
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve "
        "thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen".split()
    )
}
_TENS = {
    word: 10 * n
    for n, word in enumerate(
        "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
    )
    if n >= 2
}


class Ambiguous(Exception):
    """The answer offers more than one number (a hedge, a range, two answers)."""


class Unfinished(Exception):
    """The answer ends in an arithmetic expression that was never evaluated."""


def normalise_math(text: str) -> str:
    """Plain text for the number pattern: LaTeX spellings, `\\text{}`, superscripts
    and unit exponents."""
    text = text.replace("\u2212", "-")
    if "\\" in text or "{" in text:  # most replies have no LaTeX: skip its rewrites
        for spelling, plain in _MATH_SPELLINGS:
            text = text.replace(spelling, plain)
        text = _TEXT_COMMAND.sub(r"\1", text)
        text = _LATEX_MIXED.sub(
            r"\1 \2/\3",
            _FRAC_SHORTHAND.sub(
                lambda m: f"\\{m[1]}{{{m[2] or m[3]}}}{{{m[4] or m[5]}}}", text
            ),
        )
    text = _SUPERSCRIPT.sub(
        lambda m: "^{" + m.group(0).translate(_TO_PLAIN) + "}", text
    )
    return _UNIT_POWER.sub("", text) if "^" in text else text


def _plain_number(text: str | None) -> float | None:
    cleaned = (text or "").strip().replace(",", "")
    return float(cleaned) if _PLAIN.fullmatch(cleaned) else None


def _number_value(match: re.Match[str]) -> float | None:
    """The value of one matched number (unsigned), or None when it is not a finite
    number (1/0, 1e999)."""
    groups = match.groupdict()
    if groups["fnum"] is not None:
        numerator, denominator = (
            _plain_number(groups["fnum"]),
            _plain_number(groups["fden"]),
        )
    elif groups["whole"] is not None:
        numerator = float(groups["whole"]) * float(groups["mden"]) + float(
            groups["mnum"]
        )
        denominator = float(groups["mden"])
    else:
        numerator, denominator = _plain_number(groups["mant"]), 1.0
        if numerator is None:
            return None
        if groups["exp"]:
            numerator = float(groups["mant"].replace(",", "") + groups["exp"])
        elif groups["pow"]:
            # a string keeps 10^400 an inf, not an OverflowError
            numerator *= float(f"1e{groups['pow']}")
        elif groups["power"]:
            numerator = _power(numerator, int(groups["power"]))
        elif groups["den"] or groups.get("sden"):
            denominator = _plain_number(groups["den"] or groups["sden"])
        if groups["scale"] and numerator is not None:
            numerator *= _SCALES[groups["scale"].lower()]
    if numerator is None or not denominator:
        return None
    value = numerator / denominator
    return value if math.isfinite(value) else None


def _power(base: float, exponent: int) -> float | None:
    try:
        return float(base**exponent) if abs(exponent) <= 1000 else None
    except (OverflowError, ZeroDivisionError):
        return None


def _is_negative(text: str, start: int) -> bool:
    """A minus right before the number that is a sign, not a subtraction or a range
    ("- 5", "to -5", "=-5")."""
    before = text[:start].rstrip().removesuffix("$").rstrip()
    if not before.endswith("-"):
        return False
    prior = before[:-1].rstrip().removesuffix("$").rstrip()
    return (
        not prior
        or prior[-1] in "=:([{,≈~"
        or re.search(r"(?:^|\s)[A-Za-z]{2,}$", prior) is not None
    )


def _numbers(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int, str, float]]:
    """Every finite number in `text` as (start, end, text read, signed value)."""
    found = []
    for match in pattern.finditer(text):
        value = _number_value(match)
        if value is None:
            continue
        raw, start = match.group(0).strip(), match.start()
        if _is_negative(text, start):
            value, raw, start = -value, "-" + raw, text.rindex("-", 0, start)
        found.append((start, match.end(), raw, value))
    return found


def _number_word(text: str) -> tuple[str, float] | None:
    """A whole answer written as a number word: "twelve", "Twenty-one"."""
    word = text.strip().strip("*_.!`\"'").strip().lower()
    if word in _WORDS:
        return text.strip(), float(_WORDS[word])
    tens, _, unit = word.replace(" ", "-").partition("-")
    if tens in _TENS and (not unit or unit in _WORDS and 0 < _WORDS[unit] < 10):
        return text.strip(), float(_TENS[tens] + (_WORDS[unit] if unit else 0))
    return None


def _focus(text: str) -> str:
    """A marked answer without what cannot be it: asides in brackets, "not 48", the
    left side of an equation."""
    for aside in _ASIDE.finditer(text):
        if is_hedge(aside[1]):
            raise Ambiguous(aside.group(0).strip())
    text = _NEGATED.sub(" ", _ASIDE.sub(" ", text))
    if _ROOTS.search(text):
        raise Ambiguous(text.strip())
    for sign in ("=", "≈"):
        if sign in text:
            text = text.rsplit(sign, 1)[1]
    return text


_ROOTS = lazy_pattern(
    r"\b([a-z])(_?\d)?\s*[=≈]\s*-?\s*[\d.]+[^=≈\n]{0,12}?"
    r"\b(?:or|and)\s+\1(?:_?\d)?\s*[=≈]\s*-?\s*\d"
)
_SAME_UNKNOWN = lazy_pattern(r"\s*,?\s*(?:or|and)\s+([a-z])\s*=\s*")


def _two_roots(text: str, previous_start: int, between: str) -> bool:
    """Whether text is like "x = 4 or x = -4": two values of one unknown (not
    "3x = 15 and x = 5", a derivation)."""
    joined = _SAME_UNKNOWN.fullmatch(between)
    return (
        joined is not None
        and re.search(rf"\b{joined[1]}\s*=\s*$", text[:previous_start]) is not None
    )


def read_answer_number(text: str, *, marked: bool) -> tuple[str, float] | None:
    """The final number of an answer as (the text read, its value), or None when there
    is none.

    Raises Ambiguous when the final number is joined to a different one by "or", "and",
    "to", a comma, a slash or a range dash, and Unfinished when it is the last operand
    of an unevaluated expression.
    """
    text = normalise_math(text)
    if (word := _number_word(text)) is not None:  # the whole answer: "Forty-two."
        return word
    if marked:
        text = _focus(text)
        if (word := _number_word(text)) is not None:
            return word
    else:
        text = _NEGATED.sub(" ", text)
    pattern = _NUMBER_MARKED if marked else _NUMBER_WHOLE
    numbers = _numbers(text, pattern)
    if not numbers:
        return None
    compared = _COMPARED.search(text)
    if compared is not None and _numbers(text[: compared.start()], pattern):
        # the answer comes before a clause comparing it with other numbers
        text = text[: compared.start()]
        numbers = _numbers(text, pattern)
    start, end, raw, value = numbers[-1]
    if len(numbers) > 1:
        previous = numbers[-2]
        between = text[previous[1] : start]
        # "40-42"; a spaced "24 - 6" is a subtraction
        is_range = between in (
            "-",
            "–",
            "—",
        )
        if (
            not is_range
            and _OPERATOR_ONLY.fullmatch(between)
            and not text[end:].strip(" .!?*_$\n")
        ):
            raise Unfinished(text[previous[0] : end])
        if previous[3] != value and (
            is_range
            or joined_by_hedge(between)
            or _two_roots(text, previous[0], between)
        ):
            raise Ambiguous(text[previous[0] : end])
    return raw, value


def read_final_number(text: str) -> tuple[str, float] | None:
    """The final number of a reply's answer (see `read_answer_number`); the last
    `\\boxed{}` decides if any."""
    answer = find_answer(text)
    return read_answer_number(answer.text, marked=answer.marked)


# an item's target is read once per solution graded against it
@functools.lru_cache(maxsize=4096)
def read_target_number(target: str) -> float | None:
    """The target as a number, when the whole target is one: "1,234", "$5", "-1/2",
    "50%", "\\frac{3}{4}"."""
    text = normalise_math(target).strip()
    boxed = last_boxed(text)
    if boxed is not None and text.startswith("\\"):
        text = boxed
    text = text.strip().strip("$").strip().rstrip(".").removesuffix("%").strip()
    negative = text.startswith("-")
    match = _NUMBER_MARKED.fullmatch(text.removeprefix("-").strip())
    value = _number_value(match) if match else None
    return None if value is None else -value if negative else value


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
    answer = find_answer(solution)
    try:
        found = read_answer_number(answer.text, marked=answer.marked)
        # "The answer is not obvious at first. … so 12."
        if found is None and answer.phrased:
            found = read_answer_number(solution, marked=False)
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
    raw, value = found
    close = math.isclose(value, expected, rel_tol=rel_tol, abs_tol=abs_tol)
    return ScoreResult(
        score=1.0 if close else 0.0,
        answer=raw,
        explanation=f"read {value!r}, target {expected!r}",
    )
